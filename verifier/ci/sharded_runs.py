"""Finishing a sharded run: its summary from the stored rows of every shard.

Shards of a run (``verifier run --shard K/N --run-id RUN``) record their own ends;
the run itself ends when every shard has finished, by the last shard or by
``verifier run --finish RUN``. Its summary is computed exactly as a CI output of a
stored run is (:func:`verifier.ci.from_store.replay_stored_run`: every case re-scored
from its rows, in line order), which is what an unsharded run of the same cases
records. A run with a shard missing is not finished: it stays running, which no
report or listing shows as passed (ADR 0043).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from verifier.ci.from_store import replay_stored_run
from verifier.engine.run_record import summary_record
from verifier.gaps.shards import ShardedStore, ShardError, ShardRecord, sharded_store, shards_left
from verifier.gaps.store import GapStore
from verifier.results import RunSummary

if TYPE_CHECKING:
    from verifier.engine.ports import ReportSink

__all__ = ["ShardsMissing", "finish_sharded_run", "unfinished_shards"]


class ShardsMissing(ShardError):
    """A sharded run with a shard that has not finished: it cannot end yet."""


def unfinished_shards(store: GapStore, run_id: str) -> tuple[ShardedStore, int, list[str]]:
    """The store as a sharded one, the run's shard count and what keeps it from
    finishing (empty: every shard has finished, or the run already ended).

    Raises:
        ShardError: The store cannot hold sharded runs, or the run is unknown or
            not sharded.
    """
    sharded = sharded_store(store)
    record = store.run(run_id)
    if record is None:
        raise ShardError(f"run {run_id} is not in {store.location}")
    count = record.options.get("shards")
    if not isinstance(count, int):
        raise ShardError(f"run {run_id} is not a sharded run (verifier run --shard K/N)")
    if record.status == "finished":
        return sharded, count, []
    return sharded, count, shards_left(count, sharded.shards(run_id))


def finish_sharded_run(
    store: GapStore, run_id: str, sinks: Sequence[ReportSink] = ()
) -> RunSummary:
    """Ends the sharded run ``run_id`` unless it has ended, then feeds its report to
    ``sinks`` and returns its summary as stored.

    Raises:
        ShardsMissing: A shard has not finished (never began, still running, killed
            or interrupted); the run is left as it is.
        StoreError: Another process is writing the run (a shard, or a finish).
    """
    sharded, count, left = unfinished_shards(store, run_id)
    if left:
        raise ShardsMissing(
            f"run {run_id} is incomplete: {'; '.join(left)}. Start a shard that never "
            f"began with verifier run CONTRACT --shard K/{count} --run-id {run_id}, resume "
            f"another with verifier run CONTRACT --resume {run_id} --shard K/{count}"
        )
    summary = None
    with sharded.holding_run(run_id):
        record = store.run(run_id)
        if record is not None and record.status != "finished":
            summary = replay_stored_run(store, run_id, [])
            summary.judge_usage = _usage(sharded.shards(run_id))
            summary.finished_at = _now()
            store.finish_run(
                run_id,
                status="finished",
                finished_at=summary.finished_at,
                summary=summary_record(summary),
            )
    if summary is None or sinks:
        # The report is made from the run as stored, ended: its head, its end time.
        return replay_stored_run(store, run_id, list(sinks))
    sealed = store.run_seal(run_id)
    summary.head = sealed.seal_hash if sealed is not None else None
    summary.interrupted = False
    return summary


def _usage(shards: list[ShardRecord]) -> dict[str, Any] | None:
    """The judges' usage of the run: what every shard recorded, added up."""
    total: dict[str, Any] | None = None
    for shard in shards:
        usage = shard.summary.get("usage")
        if isinstance(usage, Mapping):
            total = _added(total or {}, usage)
    return total


def _added(into: dict[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in more.items():
        have = into.get(key)
        if isinstance(value, Mapping):
            into[key] = _added(have if isinstance(have, dict) else {}, value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            into[key] = (have if isinstance(have, int | float) else 0) + value
        elif key not in into:
            into[key] = value
    return into


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
