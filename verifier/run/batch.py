"""A run whose judge requests go as Message Batches (``verifier run --batch``): a
pre-pass submits and collects them, then the run replays their verdicts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from verifier.cases import CaseLine
from verifier.engine.runner import Runner
from verifier.engine.stoppable import run_stoppable
from verifier.results import RunSummary

__all__ = ["every_case", "run_with_batch"]


def run_with_batch(
    runner: Runner,
    open_cases: Callable[[], Iterable[CaseLine]],
    *,
    target: str,
    poll: float,
    total: int | None,
    new_first: Iterable[CaseLine] | None = None,
) -> RunSummary:
    """The run with its batch pre-pass, in one event loop (the providers belong to it).

    Args:
        runner: The run, its judge phase live or recording.
        open_cases: Reads the run's cases from the start (once for the pre-pass, once
            for the run).
        target: The store, where the batches in flight are kept track of.
        poll: Seconds between two looks at a batch.
        total: The cases, for the progress bar.
        new_first: A resumed run's new cases, checked first.

    Raises:
        BatchError: The contract has no judge claims, or the judges replay.
        KeyboardInterrupt: Ctrl-C (or SIGTERM) stopped the run; its rows are kept.
    """
    from verifier.judge.batch import BatchError, BatchLedger, run_batch_prepass

    phase: Any = runner.model_phase
    if getattr(phase, "mode", None) is None:  # no judge phase: nothing to batch
        raise BatchError("--batch needs judge claims; this contract has none")
    if phase.mode == "replay":
        raise BatchError("--batch calls the judges; it cannot be combined with replay mode")

    async def prepass() -> None:
        ledger = BatchLedger(target)
        try:
            errors = await run_batch_prepass(
                phase, open_cases(), ledger=ledger, run_id=runner.run_id, poll_interval=poll
            )
        finally:
            ledger.close()
        phase.replay_reasons = errors
        phase.mode = "replay"

    # The run is recorded before a batch is submitted: a run stopped while its batches
    # are out is resumed, which polls them and submits nothing they carry.
    cases = every_case(open_cases)
    return run_stoppable(runner.run(cases, total=total, new_first=new_first, prepare=prepass))


def every_case(open_cases: Callable[[], Iterable[CaseLine]]) -> Iterable[CaseLine]:
    """The run's cases, opened only when the runner reaches them: after a resumed run's
    new work, which reads the file first (and counts the baseline matches anew)."""
    yield from open_cases()
