"""What a run records of itself in its store's runs table: the run as it starts (the
contract, the options it runs with) and its totals when it ends."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from verifier.contract.load import LoadedContract
from verifier.contract.schema_files import RUN_OPTION as SCHEMA_FILES_OPTION
from verifier.contract.schema_files import schema_file_hashes
from verifier.contract.selection import judge_claims_not_run
from verifier.engine.plan import Plan
from verifier.gaps.content import RecordPolicy
from verifier.gaps.store import GapStore, RunStatus
from verifier.overall import OverallTally
from verifier.results import RunSummary


def now_utc() -> str:
    """The time now, as a run records it (UTC, to the microsecond, ending in ``Z``)."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def start_run(
    store: GapStore,
    loaded: LoadedContract,
    plan: Plan,
    *,
    run_id: str,
    threshold: float,
    options_record: Mapping[str, Any] | None,
    record: RecordPolicy,
) -> RunSummary:
    """Records the run ``run_id`` of ``loaded`` as started in ``store`` and returns its
    summary, empty so far.

    The run's options are ``options_record`` (what the invocation asked), with the
    threshold, the record policy and the hashes of the schema files the contract read.
    """
    contract = loaded.contract
    summary = RunSummary(
        run_id=run_id,
        contract_id=contract.contract,
        contract_version=contract.version,
        contract_sha256=loaded.sha256,
        contract_path=str(loaded.path),
        threshold=threshold,
        started_at=now_utc(),
        claim_lines={p.id: loaded.claim_line(p.id) for p in plan.order},
        judge_claims_not_run=judge_claims_not_run(loaded, options_record or {}),
        overall=None if plan.overall is None else OverallTally(plan.overall),
    )
    store.begin_run(
        run_id=run_id,
        contract_id=contract.contract,
        contract_version=contract.version,
        contract_sha256=loaded.sha256,
        contract_path=str(loaded.path),
        contract_source=loaded.source.decode("utf-8"),
        started_at=summary.started_at,
        options=dict(
            options_record or {},
            threshold=threshold,
            record=record.as_record(),
            **_schema_files(loaded),
        ),
    )
    return summary


def finish_run(store: GapStore, summary: RunSummary, *, status: RunStatus) -> None:
    """Records the end of the run of ``summary`` and its totals in ``store``, and sets
    the summary's ``head`` to the seal that closes the run."""
    store.finish_run(
        summary.run_id,
        status=status,
        finished_at=summary.finished_at,
        summary=summary_record(summary),
    )
    sealed = store.run_seal(summary.run_id)
    summary.head = sealed.seal_hash if sealed else None


def summary_record(summary: RunSummary) -> dict[str, Any]:
    """The totals a store records when a run (or a shard of one) ends."""
    record = {
        "total_cases": summary.total_cases,
        "passed_cases": summary.passed_cases,
        "failed_cases": summary.failed_cases,
        "average_score": round(summary.average_score, 6),
        "threshold": summary.threshold,
        "assertion_breakdown": {k: v.as_dict() for k, v in summary.breakdown.items()},
        "usage": summary.judge_usage,
    }
    not_run = summary.judge_claims_not_run
    if not_run.count:  # a run that checked every claim keeps the record it always had
        record["judge_claims_not_run"] = not_run.as_dict()
    if summary.overall is not None:  # and one whose contract asks for no overall
        record["overall"] = summary.overall.as_dict()
    if summary.findings:  # and one without a findings claim
        record["findings"] = summary.findings_dict()
    if summary.warnings:  # so does a run without a path that found nothing
        record["warnings"] = list(summary.warnings)
    return record


def _schema_files(loaded: LoadedContract) -> dict[str, dict[str, str]]:
    """The run option naming the schema files read, by their sha256 (none: no option)."""
    hashes = schema_file_hashes(loaded)
    return {SCHEMA_FILES_OPTION: hashes} if hashes else {}
