"""CI outputs of a run already in a store, rebuilt from its gap rows.

A run's rows and the exact contract source it checked are stored, so any sink of
:mod:`verifier.ci` (the pull-request comment, the step summary) can be fed after
the fact: the contract is re-read from the store, each case is re-scored from its
rows with the run's threshold, and the cases go to the sinks in their line order.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from verifier.contract.load import check_contract_source
from verifier.contract.selection import choose_claims, judge_claims_not_run, judged_claims, unscored
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.overall import OverallTally
from verifier.results import RunSummary

if TYPE_CHECKING:
    from verifier.engine.ports import ReportSink

__all__ = ["StoredRunError", "replay_stored_run"]


class StoredRunError(VerifierError):
    """A stored run whose results cannot be rebuilt."""


def replay_stored_run(store: GapStore, run_id: str, sinks: list[ReportSink]) -> RunSummary:
    """Feeds every case of a stored run to ``sinks`` and finishes them.

    Memory grows with the run's cases (they are re-scored together).

    Raises:
        StoredRunError: The run or its contract is not in the store.
    """
    from verifier.engine.plan import build_plan
    from verifier.engine.stored_cases import stored_cases

    record = store.run(run_id)
    if record is None:
        raise StoredRunError(f"run {run_id} is not in {store.location}")
    stored = store.contract(record.contract_sha256)
    if stored is None:
        raise StoredRunError(f"run {run_id}: its contract is not in {store.location}")
    loaded, diagnostics = check_contract_source(stored.source.encode("utf-8"), Path(stored.path))
    if loaded is None:
        problem = next(iter(diagnostics), None)
        raise StoredRunError(f"run {run_id}: its stored contract no longer loads: {problem}")
    # Scored as the run was: on the claims it checked, judged claims out with judges off.
    claims = record.options.get("claims")
    if isinstance(claims, list):
        loaded = choose_claims(loaded, [str(claim) for claim in claims])
    if record.options.get("judges") == "off":
        loaded = unscored(loaded, judged_claims(loaded))
    threshold = record.options.get("threshold", loaded.contract.threshold)
    plan = build_plan(loaded)
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
    # A line stored twice (a resumed run redid it) counts once: the later rows.
    cases = {case.line: case for case in stored_cases(store, run_id, plan, float(threshold))}
    for case in sorted(cases.values(), key=lambda c: c.line):
        summary.add_case(case)
        for sink in sinks:
            sink.add_case(case)
    for sink in sinks:
        sink.finish(summary)
    return summary
