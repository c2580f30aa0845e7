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

from verifier._internal.json_words import json_kind
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.results import ClaimTally, RowStatus, row_not_applicable

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
        # Only a skipped row's body can say its claim did not apply to the case.
        absent = status == "skipped" and row_not_applicable(orjson.loads(row.body))
        breakdown.setdefault(row.claim_id, ClaimTally()).add(status, absent)
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
    except ValueError as exc:
        raise BaselineError(
            f"{path}: not a JSON report of `verifier run --format json` ({exc})"
        ) from None


def _parse_report(path: Path, report: Any) -> BaselineRun:
    contract = _get(report, "contract", dict)
    cases: set[str] = set()
    failing: dict[tuple[str, str], RowStatus] = {}
    for i, case in enumerate(_get(report, "cases", list)):
        case_id = str(_get(case, "id", (str, int), f"cases[{i}]."))
        cases.add(case_id)
        for j, result in enumerate(_get(case, "results", list, f"cases[{i}].")):
            status = _get(result, "status", str, f"cases[{i}].results[{j}].")
            if status not in _STATUSES:
                raise ValueError(f"unknown status {status!r}")
            if status in ("fail", "error"):
                claim_id = _get(result, "id", str, f"cases[{i}].results[{j}].")
                failing[(case_id, claim_id)] = status
    breakdown: dict[str, ClaimTally] = {}
    for claim_id, tally in _get(report, "assertion_breakdown", dict).items():
        where = f"assertion_breakdown[{claim_id!r}]."
        passed, failed, errors, skipped = (
            _get(tally, key, int, where) for key in ("passed", "failed", "errors", "skipped")
        )
        absent = tally.get("not_applicable", 0)
        breakdown[claim_id] = ClaimTally(
            passed=passed,
            failed=failed,
            errors=errors,
            skipped=skipped,
            not_applicable=absent if isinstance(absent, int) else 0,
        )
    return BaselineRun(
        source=str(path),
        run_id=str(_get(report, "run_id", (str, int))),
        contract_id=str(_get(contract, "id", str, "contract.")),
        contract_version=_get(contract, "version", int, "contract."),
        contract_sha256=str(contract.get("sha256", "")),
        total_cases=_get(report, "total_cases", int),
        passed_cases=_get(report, "passed_cases", int),
        breakdown=breakdown,
        cases=frozenset(cases),
        failing=failing,
    )


_KINDS = {dict: "an object", list: "an array", str: "a string", int: "an integer"}


def _get(node: Any, key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    """``node[key]`` when it is of ``kind``, else a ``ValueError`` naming its place in
    words (a report edited by hand, or another tool's JSON)."""
    if not isinstance(node, dict):
        raise ValueError(f"{where.rstrip('.') or 'the report'} must be an object")
    if key not in node:
        raise ValueError(f"missing key {key!r}" + (f" in {where.rstrip('.')}" if where else ""))
    value = node[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        wanted = " or ".join(_KINDS[k] for k in kinds)
        raise ValueError(f"{where}{key} must be {wanted}, not {json_kind(value)}")
    return value
