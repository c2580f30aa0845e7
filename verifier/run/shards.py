"""A sharded run: ``count`` processes each check the cases whose id hashes into their
part and write them into one run (a PostgreSQL store); the last shard to finish ends
the run, and :func:`finish_sharded_run` ends one whose shards have all finished.

The ends of a run are imported only when a shard ends (``verifier.ci.sharded_runs``:
a run that is not sharded never loads it, ADR 0045).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from verifier.cases import CaseLine
from verifier.gaps.records import StoreError
from verifier.gaps.shards import Shard, sharded_store
from verifier.gaps.store import GapStore, is_postgres_url, open_store, resolve_run_id
from verifier.gaps.target import new_store_target
from verifier.results import RunSummary
from verifier.run.options import RunOptionError, ShardPart, Sinks, sinks_over

__all__ = ["ShardEnd", "begin_shard", "check_shard", "end_shard", "finish_sharded_run", "in_shard"]


@dataclass(frozen=True)
class ShardEnd:
    """How a shard's end left its run.

    Attributes:
        label: The shard, ``K/N``.
        run_id: The run the shards write into.
        passed: Cases of the shard's part that passed.
        total: Cases of the shard's part.
        failed: Cases of the shard's part that failed.
        already_finished: The shard had finished before (a resumed shard killed after
            recording its end): nothing was left to check.
        waits: What the run still waits for (empty: it ended, or another shard is ending it).
        whole: The run's summary when this shard ended it.
        busy: Another shard ending at the same moment holds the run: it finishes it.
    """

    label: str
    run_id: str
    passed: int
    total: int
    failed: int
    already_finished: bool = False
    waits: tuple[str, ...] = ()
    whole: RunSummary | None = None
    busy: bool = False

    def lines(self, location: str) -> list[str]:
        """What ``verifier run`` says of the shard's end (``location``: the store)."""
        if self.already_finished:
            first = (
                f"shard {self.label} of run {self.run_id} had already finished ({self.passed}/"
                f"{self.total} cases passed): nothing left to check"
            )
        else:
            first = (
                f"shard {self.label} of run {self.run_id}: {self.passed}/{self.total} cases "
                f"passed; gap rows in {location}"
            )
        if self.busy:
            return [first, f"run {self.run_id}: another shard is finishing it"]
        if self.waits:
            return [first, f"run {self.run_id} waits: {'; '.join(self.waits)}"]
        whole = self.whole
        if whole is None:
            return [first]
        return [
            first,
            f"run {self.run_id} finished (every shard has): {whole.passed_cases}/"
            f"{whole.total_cases} cases passed; store head {whole.head}",
        ]


def check_shard(
    part: ShardPart | None,
    *,
    run_id: str | None,
    resuming: bool,
    sampled: bool,
    variants: bool,
    gated: bool,
    target: str,
) -> None:
    """Checks the options that go with a shard (and ``run_id`` with a resume).

    Raises:
        RunOptionError: A combination that makes no sense, or a store not PostgreSQL.
    """
    if run_id is not None and resuming:
        raise RunOptionError("--resume names the run already: give --resume RUN without --run-id")
    if part is None:
        return
    if part.run_id is None and not resuming:
        raise RunOptionError(
            "--shard writes into a run every shard names: give --run-id RUN (the same for all)"
        )
    if part.run_id is not None and resuming:
        raise RunOptionError("--resume names the run already: give --resume RUN without --run-id")
    conflicts = (("--sample", sampled), ("--variant", variants), ("--gate", gated))
    for flag, given in conflicts:
        if given:
            raise RunOptionError(
                f"{flag} cannot be combined with --shard (gate the run after --finish)"
            )
    if not is_postgres_url(target):
        raise RunOptionError(
            f"--shard needs a PostgreSQL store (--store postgresql://...), not {target}"
        )


def in_shard(lines: Iterator[CaseLine], shard: Shard) -> Iterator[CaseLine]:
    """The cases of ``lines`` that ``shard`` checks."""
    return (line for line in lines if shard.holds(line.case_id))


def begin_shard(store: GapStore, shard: Shard, run_id: str, *, resume: bool) -> ShardEnd | None:
    """Makes ``store`` write ``run_id`` as ``shard``; a resumed shard that had finished
    ends the run instead, if it was the last, and says so (nothing is left to check).

    Raises:
        StoreError: A SQLite store, or a shard begun before that is not resumed.
    """
    sharded = sharded_store(store)
    begun = [r for r in sharded.shards(run_id) if r.shard == shard]
    if begun and begun[0].status == "finished":
        if resume:
            # Killed after recording its end but before the run's: nothing is left to
            # check, and the run may be waiting for this shard to end it.
            return _run_end(store, shard, run_id, begun[0].summary, already=True)
        raise StoreError(
            f"shard {shard.label} of run {run_id} has already finished; if the run has "
            f"not, end it with verifier run --finish {run_id}"
        )
    if not resume and begun:
        raise StoreError(
            f"shard {shard.label} of run {run_id} has already begun ({begun[0].status}): "
            f"resume it with --resume {run_id} --shard {shard.label}"
        )
    sharded.write_as_shard(shard)
    return None


def end_shard(store: GapStore, shard: Shard, summary: RunSummary) -> ShardEnd:
    """Ends the shard's writing, and the run when every shard has finished."""
    sharded_store(store).write_as_shard(None)
    part = {
        "passed_cases": summary.passed_cases,
        "total_cases": summary.total_cases,
        "failed_cases": summary.failed_cases,
    }
    return _run_end(store, shard, summary.run_id, part, already=False)


def _run_end(
    store: GapStore, shard: Shard, run_id: str, part: Mapping[str, Any], *, already: bool
) -> ShardEnd:
    """Ends the sharded run when no shard is left, else says which ones it waits for."""
    from verifier.ci.sharded_runs import finish_sharded_run as finish
    from verifier.ci.sharded_runs import unfinished_shards

    passed, total, failed = (
        int(part.get(f"{k}_cases") or 0) for k in ("passed", "total", "failed")
    )
    end = ShardEnd(shard.label, run_id, passed, total, failed, already_finished=already)
    try:
        _, _, left = unfinished_shards(store, run_id)
        if left:
            return _with(end, waits=tuple(left))
        return _with(end, whole=finish(store, run_id))
    except StoreError:
        return _with(end, busy=True)


def _with(end: ShardEnd, **changes: Any) -> ShardEnd:
    return replace(end, **changes)


def finish_sharded_run(
    run_id: str,
    *,
    store: str | os.PathLike[str] | None = None,
    sinks: Sinks = (),
) -> RunSummary:
    """Ends a sharded run once every shard has finished (or reads one already ended)
    and feeds its report to ``sinks``: ``verifier run --finish RUN``.

    Args:
        run_id: The run: its id, ``last`` or ``last~N``.
        store: The store the shards wrote into (default: ``VERIFIER_STORE``).
        sinks: Report writers told of every case and of the end of the run, or a
            function making them over the open store.

    Raises:
        ShardsMissing: A shard has not finished; the run is left as it is.
        VerifierError: The store, or the run (unknown, not sharded, being written).
    """
    from verifier.ci.sharded_runs import finish_sharded_run as finish

    with open_store(new_store_target(store)) as gap_store:
        resolved = resolve_run_id(gap_store, run_id)
        return finish(gap_store, resolved, sinks_over(sinks, gap_store))
