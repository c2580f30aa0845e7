"""The audit's check of each ended run's summary against its own rows.

A run page's headline (cases passed and failed, each claim's pass rate) is read from
the run's stored summary. An intruder who rewrites a summary so every case passes
must not leave an audit that says "ok", so the totals are checked against the rows:
each claim's counts of pass, fail, error and skipped exactly; the number of cases
(a case's rows are written together, one per claim); and the case verdicts as far as
rows alone decide them (a case with an error row failed, one whose rows all pass
passed; the others depend on claim weights and the threshold, and the seal of the
run's end covers them).

Fed as a ``RowObserver``; memory grows with runs and claims, never with rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from verifier.analyses._audit_report import AuditReport
from verifier.gaps.store import RunRecord, StoredRow

_STATUS_KEYS = {"pass": "passed", "fail": "failed", "error": "errors", "skipped": "skipped"}


@dataclass(slots=True)
class _RunRows:
    claims: dict[str, dict[str, int]] = field(default_factory=dict)
    cases: int = 0
    errored: int = 0
    all_pass: int = 0
    case_id: str | None = None
    case_claims: set[str] = field(default_factory=set)
    case_error: bool = False
    case_all_pass: bool = True

    def close_case(self) -> None:
        if self.case_id is not None:
            self.cases += 1
            self.errored += self.case_error
            self.all_pass += self.case_all_pass and not self.case_error


class SummaryCheck:
    """Tallies the rows of runs whose summary states case totals, then compares."""

    def __init__(self, records: Iterable[RunRecord]) -> None:
        self.records = {r.run_id: r for r in records if _stated(r.summary)}
        self.tallies: dict[str, _RunRows] = {run_id: _RunRows() for run_id in self.records}

    def observe(self, rows: Sequence[tuple[StoredRow, Any]]) -> None:
        tallies = self.tallies
        for row, _ in rows:
            tally = tallies.get(row.run_id)
            if tally is None:
                continue
            counts = tally.claims.get(row.claim_id)
            if counts is None:
                counts = tally.claims[row.claim_id] = dict.fromkeys(_STATUS_KEYS.values(), 0)
            key = _STATUS_KEYS.get(row.status)
            if key is not None:
                counts[key] += 1
            # A new case begins with another id, or with a claim this case already has.
            if row.case_id != tally.case_id or row.claim_id in tally.case_claims:
                tally.close_case()
                tally.case_id, tally.case_claims = row.case_id, set()
                tally.case_error, tally.case_all_pass = False, True
            tally.case_claims.add(row.claim_id)
            tally.case_error |= row.status == "error"
            tally.case_all_pass &= row.status == "pass"

    def report(self, report: AuditReport, run_ids: Iterable[str]) -> None:
        """Adds a ``summary`` problem for each of ``run_ids`` its rows contradict."""
        for run_id in run_ids:
            record, tally = self.records.get(run_id), self.tallies.get(run_id)
            if record is None or tally is None or record.status == "running":
                continue
            tally.close_case()
            tally.case_id = None
            wrong = _contradictions(record.summary, tally)
            if wrong:
                report.add(
                    "summary",
                    None,
                    None,
                    f"run {run_id}'s summary contradicts its rows ({'; '.join(wrong)}): "
                    "the summary was rewritten",
                )


def _stated(summary: Mapping[str, Any]) -> bool:
    return isinstance(summary.get("total_cases"), int)


def _contradictions(summary: Mapping[str, Any], rows: _RunRows) -> list[str]:
    wrong: list[str] = []
    total, passed, failed = (
        summary.get("total_cases"),
        summary.get("passed_cases"),
        summary.get("failed_cases"),
    )
    if total != rows.cases:
        wrong.append(f"{total} cases, the rows hold {rows.cases}")
    if isinstance(passed, int) and isinstance(failed, int):
        if passed + failed != total:
            wrong.append(f"{passed} passed and {failed} failed of {total}")
        if failed < rows.errored:
            wrong.append(f"{failed} failed, but {rows.errored} cases have an error row")
        if passed < rows.all_pass:
            wrong.append(f"{passed} passed, but {rows.all_pass} cases passed every claim")
    breakdown = summary.get("assertion_breakdown")
    if isinstance(breakdown, Mapping):
        for claim_id in sorted(set(breakdown) | set(rows.claims)):
            stated = breakdown.get(claim_id)
            held = rows.claims.get(claim_id)
            if not isinstance(stated, Mapping) or held is None:
                wrong.append(f"claim {claim_id} is not in both the summary and the rows")
            elif any(stated.get(k) != v for k, v in held.items()):
                wrong.append(f"claim {claim_id}'s counts differ from its rows")
    return wrong
