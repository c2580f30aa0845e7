"""Resuming a run: what an interrupted run already stored is read back, not redone.

Rows are appended a chunk at a time, so a case is either stored whole or not at all;
a resumed run skips the stored cases (rebuilding their results from their rows for
the report and totals) and checks only the rest. Judge verdicts obtained before the
interruption are in the cache, so even a case whose rows were lost costs no new call.
"""

from __future__ import annotations

from typing import Any

import orjson

from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord
from verifier.plan import Plan
from verifier.results import CaseResult, ClaimResult


class ResumeError(VerifierError):
    """A run that cannot be resumed (unknown, finished, or of another contract)."""


def check_resumable(store: GapStore, run_id: str, contract_sha256: str) -> RunRecord:
    """The record of ``run_id``, an unfinished run of this contract.

    Raises:
        ResumeError: The run is unknown, finished, or of another contract version.
    """
    record = store.run(run_id)
    if record is None:
        raise ResumeError(f"run {run_id} is not in {store.location}")
    if record.status == "finished":
        raise ResumeError(f"run {run_id} already finished; start a new run instead")
    if record.contract_sha256 != contract_sha256:
        raise ResumeError(
            f"run {run_id} used another version of the contract "
            f"(sha256 {record.contract_sha256[:12]}…); resume it with that file"
        )
    return record


def stored_cases(
    store: GapStore, run_id: str, plan: Plan, threshold: float
) -> dict[str, CaseResult]:
    """Every case of the run whose rows cover every claim, rebuilt from its rows.

    Memory grows with the cases already stored, which a resume needs to skip them.
    """
    from verifier.runner import score_case

    found: dict[str, dict[str, ClaimResult]] = {}
    lines: dict[str, int] = {}
    for row in store.iter_rows(run_id):
        body: dict[str, Any] = orjson.loads(row.body)
        case_id = str(body["case_id"])
        found.setdefault(case_id, {})[str(body["claim_id"])] = ClaimResult(
            claim_id=str(body["claim_id"]),
            kind=body["kind"],
            status=body["status"],
            score=body["score"],
            reason=str(body["reason"]),
            evidence=body["evidence"],
        )
        # The row id is RUN:LINE:CLAIM; the line keeps report order meaningful.
        line = str(body["row_id"]).rsplit(":", 2)
        lines[case_id] = int(line[1]) if len(line) == 3 and line[1].isdigit() else 0
    done: dict[str, CaseResult] = {}
    ids = [p.id for p in plan.order]
    for case_id, results in found.items():
        if all(claim_id in results for claim_id in ids):
            score, ok = score_case(plan, results, threshold)
            ordered = tuple(results[claim_id] for claim_id in ids)
            done[case_id] = CaseResult(case_id, lines[case_id], ordered, score, ok)
    return done
