"""The run's Markdown summary, appended to a CI step summary file (``$GITHUB_STEP_SUMMARY``).

GitHub renders the file's Markdown on the run's page once the step ends; every step
of a job appends to it, so this writer never truncates it. The summary is the
Markdown report (heading with the run id, breakdown per claim, failing cases),
whatever ``--format`` the run's own report has; with a baseline it is the
pull-request comment's body, changes included. A summary that cannot be written (a
full disk, a read-only file) is kept as :attr:`StepSummaryWriter.failure`: the run's
rows and its other reports are still finished, then the command says so in one line
and exits 2.
"""

from __future__ import annotations

import io
from pathlib import Path

from verifier._internal.write_errors import OutputError
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
        baseline: A run to compare with, as the pull-request comment does.

    Attributes:
        failure: Why the summary could not be written, once ``finish`` failed to.
    """

    def __init__(self, path: Path, *, baseline: BaselineRun | None = None) -> None:
        self._path = path
        self.failure: OutputError | None = None
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
            self.failure = OutputError(self._path, exc, "the step summary")
