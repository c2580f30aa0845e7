"""CI outputs of a run already in a store, rebuilt from its gap rows.

A run's rows and the exact contract source it checked are stored, so any sink of
:mod:`verifier.ci` (the pull-request comment, the step summary) can be fed after
the fact: the contract is re-read from the store, each case is re-scored from its
rows with the run's threshold, and the cases go to the sinks in their line order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.contract.selection import judge_claims_not_run
from verifier.engine.stored_run import StoredRunError, stored_run
from verifier.gaps.store import GapStore
from verifier.overall import OverallTally
from verifier.results import RunSummary

if TYPE_CHECKING:
    from verifier.engine.ports import ReportSink

__all__ = ["StoredRunError", "replay_stored_run"]


def replay_stored_run(store: GapStore, run_id: str, sinks: list[ReportSink]) -> RunSummary:
    """Feeds every case of a stored run to ``sinks`` and finishes them.

    Memory grows with the run's cases (they are re-scored together).

    Raises:
        StoredRunError: The run or its contract is not in the store.
    """
    run = stored_run(store, run_id)
    record, stored, loaded, plan = run.record, run.contract, run.loaded, run.plan
    threshold = run.threshold
    summary = RunSummary(
        run_id=run_id,
        contract_id=record.contract_id,
        contract_version=record.contract_version,
        contract_sha256=record.contract_sha256,
        contract_path=stored.path,
        threshold=float(threshold),
        started_at=record.started_at,
        finished_at=record.finished_at or "",
        claim_lines={p.id: loaded.claim_line(p.id) for p in plan.order},
        store=store.location,
        interrupted=record.status != "finished",
        judge_claims_not_run=judge_claims_not_run(loaded, record.options),
        overall=None if plan.overall is None else OverallTally(plan.overall),
    )
    usage = record.summary.get("usage")
    if isinstance(usage, dict):
        summary.judge_usage = usage
    warnings = record.summary.get("warnings")
    if isinstance(warnings, list):  # a path that found nothing, as the run said it
        summary.warnings = [w for w in warnings if isinstance(w, str)]
    sealed = store.run_seal(run_id)
    if sealed is not None and sealed.kind == "end":
        summary.head = sealed.seal_hash
    for case in run.cases(store):
        summary.add_case(case)
        for sink in sinks:
            sink.add_case(case)
    for sink in sinks:
        sink.finish(summary)
    return summary
