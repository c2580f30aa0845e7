"""The parts of ``verifier run`` around the library's run: the stdout guard for a
Python system under test, the CI sinks, the notes and the run's scope lines.

Imported only when ``run`` runs; the CI modules are imported only when asked for.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import click

from verifier.cli._options import annotating
from verifier.results import RunSummary

__all__ = ["StdoutGuard", "ci_sinks", "note", "scope_lines"]


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
