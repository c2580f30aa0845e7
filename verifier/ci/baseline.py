"""The baseline a pull-request comment compares a run with: a stored run or a JSON report.

In CI the store usually lives only as long as the job, so the practical baseline is
the JSON report (``verifier run --format json``) of the default branch's last run,
kept as an artifact; a run id of the same store works too. Only what a comparison
needs is kept: the per-claim tallies, the case ids and the failing results.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.results import ClaimTally, RowStatus

__all__ = ["BaselineError", "BaselineRun", "load_baseline"]

_STATUSES: frozenset[str] = frozenset({"pass", "fail", "error", "skipped"})


class BaselineError(VerifierError):
    """A baseline that names neither a readable JSON report nor a stored run."""


@dataclass(frozen=True, slots=True)
class BaselineRun:
    """What a comparison needs of the baseline run.

    Attributes:
        source: How the user named it (a file or a run id), for the comment.
        failing: Status of every ``fail`` or ``error`` result, by (case id, claim id).
        passed_cases: Cases that passed, when known (a stored run records it at its end).
    """

    source: str
    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    total_cases: int
    passed_cases: int | None
    breakdown: dict[str, ClaimTally]
    cases: frozenset[str]
    failing: dict[tuple[str, str], RowStatus]


def load_baseline(spec: str, store: GapStore) -> BaselineRun:
    """Reads the baseline ``spec`` names: a JSON report file if one exists, else a run id.

    Raises:
        BaselineError: Neither exists, or the file is not a verifier JSON report.
    """
    path = Path(spec)
    if path.is_file():
        return _from_report(path)
    record = store.run(spec)
    if record is None:
        raise BaselineError(
            f"baseline {spec}: neither a JSON report file nor a run in {store.location}"
        )
    breakdown: dict[str, ClaimTally] = {}
    cases: set[str] = set()
    failing: dict[tuple[str, str], RowStatus] = {}
    for row in store.iter_rows(spec):
        status: Any = row.status
        breakdown.setdefault(row.claim_id, ClaimTally()).add(status)
        cases.add(row.case_id)
        if status in ("fail", "error"):
            failing[(row.case_id, row.claim_id)] = status
    passed = record.summary.get("passed_cases")
    return BaselineRun(
        source=spec,
        run_id=record.run_id,
        contract_id=record.contract_id,
        contract_version=record.contract_version,
        contract_sha256=record.contract_sha256,
        total_cases=len(cases),
        passed_cases=passed if isinstance(passed, int) else None,
        breakdown=breakdown,
        cases=frozenset(cases),
        failing=failing,
    )


def _from_report(path: Path) -> BaselineRun:
    try:
        report = orjson.loads(path.read_bytes())
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise BaselineError(f"{path}: baseline is not JSON: {exc}") from None
    try:
        return _parse_report(path, report)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise BaselineError(
            f"{path}: not a JSON report of `verifier run --format json` ({_what(exc)})"
        ) from None


def _parse_report(path: Path, report: Any) -> BaselineRun:
    contract = report["contract"]
    cases: set[str] = set()
    failing: dict[tuple[str, str], RowStatus] = {}
    for case in report["cases"]:
        case_id = str(case["id"])
        cases.add(case_id)
        for result in case["results"]:
            status = result["status"]
            if status not in _STATUSES:
                raise ValueError(f"unknown status {status!r}")
            if status in ("fail", "error"):
                failing[(case_id, str(result["id"]))] = status
    breakdown = {
        str(claim_id): ClaimTally(
            passed=int(tally["passed"]),
            failed=int(tally["failed"]),
            errors=int(tally["errors"]),
            skipped=int(tally["skipped"]),
        )
        for claim_id, tally in report["assertion_breakdown"].items()
    }
    return BaselineRun(
        source=str(path),
        run_id=str(report["run_id"]),
        contract_id=str(contract["id"]),
        contract_version=int(contract["version"]),
        contract_sha256=str(contract.get("sha256", "")),
        total_cases=int(report["total_cases"]),
        passed_cases=int(report["passed_cases"]),
        breakdown=breakdown,
        cases=frozenset(cases),
        failing=failing,
    )


def _what(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}"
    return str(exc) or type(exc).__name__
