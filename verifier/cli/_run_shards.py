"""``verifier run --shard K/N --run-id RUN`` and ``verifier run --finish RUN``.

A shard checks the cases whose id hashes into its part and writes them into the
shared run; its last lines speak of its part, and the last shard to finish ends the
run. ``--finish`` ends a sharded run whose shards have all finished (or reports one
already ended) and writes its report, PR comment and step summary like a run does.
Imported only when ``run`` runs; a shard's end and ``--finish`` are in ``_run_shard_end``.
"""

from __future__ import annotations

from collections.abc import Iterator

from verifier.cases import CaseLine
from verifier.cli._options import fail
from verifier.gaps.records import StoreError
from verifier.gaps.shards import Shard, sharded_store
from verifier.gaps.store import GapStore

__all__ = ["begin_shard", "check_shard", "in_shard"]


def check_shard(
    shard_text: str | None,
    run_id: str | None,
    resume_id: str | None,
    *,
    sample: float | None,
    variants: bool,
    gate: bool,
) -> Shard | None:
    """The shard asked for, after checking the options that go with it; exits 2 on
    the first problem."""
    if run_id is not None and resume_id is not None:
        fail("--resume names the run already: give --resume RUN without --run-id")
    if shard_text is None:
        return None
    try:
        shard = Shard.parse(shard_text)
    except ValueError as exc:
        fail(f"--shard {exc}")
    if run_id is None and resume_id is None:
        fail("--shard writes into a run every shard names: give --run-id RUN (the same for all)")
    conflicts = (("--sample", sample is not None), ("--variant", variants), ("--gate", gate))
    for flag, given in conflicts:
        if given:
            fail(f"{flag} cannot be combined with --shard (gate the run after --finish)")
    return shard


def in_shard(lines: Iterator[CaseLine], shard: Shard) -> Iterator[CaseLine]:
    """The cases of ``lines`` that ``shard`` checks."""
    return (line for line in lines if shard.holds(line.case_id))


def begin_shard(store: GapStore, shard: Shard, run_id: str, *, resume: bool) -> None:
    """Makes ``store`` write ``run_id`` as ``shard``; a resumed shard that had finished
    ends the run instead, if it was the last, and exits.

    Raises:
        StoreError: A SQLite store, or a shard begun before that is not resumed.
    """
    sharded = sharded_store(store)
    begun = [r for r in sharded.shards(run_id) if r.shard == shard]
    if begun and begun[0].status == "finished":
        if resume:
            # Killed after recording its end but before the run's: nothing is left to
            # check, and the run may be waiting for this shard to end it.
            from verifier.cli._run_shard_end import end_finished_shard

            end_finished_shard(store, shard, run_id, begun[0].summary)
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
