"""The run's Markdown summary, appended to a CI step summary file (``$GITHUB_STEP_SUMMARY``).

GitHub renders the file's Markdown on the run's page once the step ends; every step
of a job appends to it, so this writer never truncates it. The summary is the
Markdown report (heading with the run id, breakdown per claim, failing cases),
whatever ``--format`` the run's own report has; with a baseline it is the
pull-request comment's body, changes included. A summary that cannot be written
costs a warning, never the run or its exit code.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from verifier.ci.baseline import BaselineRun
from verifier.ci.pr_comment import PrCommentWriter
from verifier.report import ReportWriter
from verifier.report.markdown import MarkdownReportWriter
from verifier.results import CaseResult, RunSummary

__all__ = ["StepSummaryWriter"]


class StepSummaryWriter:
    """A report sink appending the Markdown report to ``path`` in ``finish``.

    Args:
        path: The step summary file.
        warn: Called with a one-line message when the file cannot be written.
        baseline: A run to compare with, as the pull-request comment does.
    """

    def __init__(
        self, path: Path, *, warn: Callable[[str], None], baseline: BaselineRun | None = None
    ) -> None:
        self._path = path
        self._warn = warn
        self._buffer = io.StringIO()
        self._markdown: ReportWriter = (
            MarkdownReportWriter(self._buffer)
            if baseline is None
            else PrCommentWriter(self._buffer, baseline=baseline)
        )

    def add_case(self, case: CaseResult) -> None:
        """Keeps the case if it is among the failures the summary lists."""
        self._markdown.add_case(case)

    def finish(self, summary: RunSummary) -> None:
        """Appends the summary (after a blank line) to the step summary file."""
        self._markdown.finish(summary)
        try:
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write("\n" + self._buffer.getvalue())
        except OSError as exc:
            self._warn(f"cannot write the step summary to {self._path}: {exc.strerror or exc}")
