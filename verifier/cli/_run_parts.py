"""The parts of ``verifier run`` around the run itself: the stdout guard for a Python
system under test, the CI sinks, the batch pre-pass, the progress total and notes.

Imported only when ``run`` runs; the CI and batch modules are imported only when asked for.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import click

from verifier.cli._options import annotating
from verifier.errors import VerifierError
from verifier.results import RunSummary

__all__ = [
    "StdoutGuard",
    "ci_sinks",
    "count_lines",
    "every_case",
    "note",
    "resume_hint",
    "run_with_batch",
    "same_choice",
    "scope_lines",
]


def count_lines(path: Path) -> int | None:
    """The lines of ``path``, for the progress bar's total; None when it cannot be read."""
    try:
        with path.open("rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return None


class StdoutGuard:
    """File descriptor 1 sent to stderr, with a stream on the real stdout for the report."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._saved = os.dup(1)
        os.dup2(2, 1)
        self.report: IO[str] = os.fdopen(os.dup(self._saved), "w", encoding="utf-8")

    def restore(self) -> None:
        self.report.flush()
        sys.stdout.flush()
        os.dup2(self._saved, 1)
        os.close(self._saved)
        self.report.close()


def ci_sinks(
    loaded: Any,
    gap_store: Any,
    *,
    cases_path: Path,
    annotations: str,
    step_summary: str | None,
    comment_stream: IO[str] | None,
    against: str | None,
) -> list[Any]:
    """The report sinks a CI asked for: annotations, step summary, PR comment body."""
    sinks: list[Any] = []
    if annotating(annotations):
        from verifier.ci.annotations import AnnotationWriter, claim_positions, workspace_path

        sinks.append(
            AnnotationWriter(
                sys.stderr, claim_positions(loaded), cases_file=workspace_path(cases_path)
            )
        )
    baseline = None
    if against is not None:
        from verifier.ci.baseline import load_baseline

        baseline = load_baseline(against, gap_store)
    if step_summary is not None:
        from verifier.ci.step_summary import StepSummaryWriter

        sinks.append(StepSummaryWriter(Path(step_summary), baseline=baseline))
    if comment_stream is not None:
        from verifier.ci.pr_comment import PrCommentWriter

        sinks.append(PrCommentWriter(comment_stream, baseline=baseline))
    return sinks


def every_case(open_cases: Any) -> Iterator[Any]:
    """The run's cases, opened only when the runner reaches them: after a resumed run's
    new work, which reads the file first (and counts the baseline matches anew)."""
    yield from open_cases()


def run_with_batch(
    runner: Any,
    phase: Any,
    open_cases: Any,
    target: str,
    poll: float,
    total: int | None,
    new_first: Any = None,
) -> Any:
    """The run with its batch pre-pass, in one event loop (the providers belong to it)."""
    from verifier.engine.stoppable import run_stoppable
    from verifier.judge.batch import BatchError, BatchLedger, run_batch_prepass

    if phase is None:
        raise BatchError("--batch needs judge claims; this contract has none")
    if phase.mode == "replay":
        raise BatchError("--batch calls the judges; it cannot be combined with replay mode")

    async def prepass() -> None:
        ledger = BatchLedger(target)
        try:
            errors = await run_batch_prepass(
                phase,
                open_cases(),
                ledger=ledger,
                run_id=runner.run_id,
                poll_interval=poll,
            )
        finally:
            ledger.close()
        phase.replay_reasons = errors
        phase.mode = "replay"

    # The run is recorded before a batch is submitted: a run stopped while its batches
    # are out is resumed with --resume, which polls them and submits nothing they carry.
    return run_stoppable(
        runner.run(every_case(open_cases), total=total, new_first=new_first, prepare=prepass)
    )


def note(why: str) -> None:
    """Says on stderr why a model was not called live, and how to call it: ``why``
    names the API key that is not set, and ``--judges live`` alone would be refused
    without it."""
    click.echo(
        f"note: {why} (set it to call the models: runs are then live, and --judges record "
        "also saves the replies for replay)",
        err=True,
    )


def scope_lines(summary: RunSummary, claims: list[str] | None) -> list[str]:
    """What the run left out on purpose, for the lines that end it (the reports' own
    line on the judge claims not run among them)."""
    lines = []
    if claims is not None:
        lines.append(f"claims run: {', '.join(claims)} (--claims)")
    not_run = summary.judge_claims_not_run.line()
    if not_run:
        lines.append(not_run)
    return lines


def same_choice(
    recorded: Mapping[str, Any], claims: list[str] | None, judge_mode: str | None
) -> None:
    """Checks a run is resumed with the claims it started with, and with judges off only
    if it started so: its stored cases are scored as they were checked.

    Raises:
        VerifierError: The resumed run checked other claims, or judged differently.
    """
    was = recorded.get("claims")
    if was != claims:
        hint = f"--claims {','.join(was)}" if was else "without --claims"
        raise VerifierError(f"the run being resumed checked other claims; resume it {hint}")
    if (recorded.get("judges") == "off") != (judge_mode == "off"):
        hint = "with" if recorded.get("judges") == "off" else "without"
        raise VerifierError(f"resume the run {hint} --judges off, as it started")


def resume_hint(store: Any, run_id: str, *, variants: bool) -> str:
    """What to add to the error that stopped a run which had begun: the run keeps its
    stored rows, and ``--resume RUN`` checks the rest (empty when no run was begun)."""
    if variants:  # as an interrupt says it: two runs, resumed by neither id alone
        return f"; runs {run_id}-* keep the rows already stored"
    try:
        record = store.run(run_id)
    except VerifierError:
        return ""  # the store cannot even be read: nothing sure to say about the run
    if record is None or record.status == "finished":
        return ""
    return f"; run {run_id} keeps the rows already stored: --resume {run_id} checks the rest"
