"""The parts of ``verifier run`` around the library's run: the checks of its CI options,
the sample it picks, the stdout guard for a Python system under test, the CI sinks, the
notes, the run's scope lines and what an interrupt says.

Imported only when ``run`` runs; the CI modules are imported only when asked for.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from verifier.cli._options import annotating, fail
from verifier.results import RunSummary

__all__ = [
    "StdoutGuard",
    "ci_checks",
    "ci_sinks",
    "interrupted",
    "note",
    "python_sut",
    "sample_option",
    "say_sample",
    "scope_lines",
]


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


def ci_checks(against: str | None, pr_comment: Path | None, witness: Path | None) -> str | None:
    """The step summary file (``GITHUB_STEP_SUMMARY``), after checking ``--against`` has
    something to compare for and the witness file can be appended to; exits 2 if not."""
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY") or None
    if against is not None and pr_comment is None and step_summary is None:
        fail("--against compares for --pr-comment or the step summary; give --pr-comment FILE")
    if witness is not None:
        from verifier.cli._witness import prepare_witness

        prepare_witness(witness)
    return step_summary


def sample_option(fraction: float | None, seed: int | None, *, resuming: bool) -> Any:
    """``--sample``/``--seed`` as the library's option: a new run's seed chosen now (a
    resumed run goes on with its own)."""
    from verifier.errors import VerifierError
    from verifier.run.options import Sample

    try:
        chosen = Sample(fraction, seed) if fraction is not None else None
    except VerifierError as exc:
        fail(str(exc))
    return chosen.seeded() if chosen is not None and not resuming else chosen


def interrupted(stop: KeyboardInterrupt) -> NoReturn:
    """Says which run keeps the rows an interrupt left, and exits 130 (143: SIGTERM)."""
    from verifier.engine.stoppable import Terminated

    notes = getattr(stop, "__notes__", None)
    if not notes:
        raise stop
    click.echo(f"interrupted: {notes[-1]}", err=True)
    sys.exit(143 if isinstance(stop, Terminated) else 130)


def say_sample(sample: Any) -> None:
    """Says which sample the run checks, and how to check it again."""
    if sample is None:
        return
    click.echo(
        f"sampling about {sample.fraction:.4g} of the cases with seed {sample.seed} "
        f"(--sample {sample.fraction:g} --seed {sample.seed} picks the same cases again)",
        err=True,
    )


def python_sut(inputs: Any) -> bool:
    """Whether a Python system under test runs in this process (its prints kept off stdout)."""
    variants = inputs.variants
    systems = [variants.baseline, variants.candidate] if variants else [inputs.sut]
    specs = [s.spec for s in systems if s is not None] or [inputs.loaded.contract.sut]
    return any(spec is not None and spec.python for spec in specs)
