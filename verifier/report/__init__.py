"""Reports of a run: console, JSON, JUnit XML and Markdown, all written as a stream.

The runner hands every finished case to ``writer.add_case`` and the run's totals to
``writer.finish`` once. No writer keeps per-case data in memory: formats whose
header needs totals spool cases to a temporary file and assemble the output in
``finish``; formats that show only a few failing cases keep only those.

Writer modules are imported inside :func:`make_writer` so that importing this
package (and so ``verifier --help``) does not pay for rich, orjson or ElementTree.

The HTML pages (``html``: one run; ``html_trend``: pass rates over time) are written
by ``verifier report`` from a store rather than during a run (ADR 0010).
"""

from __future__ import annotations

from typing import IO, Literal, Protocol, get_args

from verifier.results import CaseResult, RunSummary

ReportFormat = Literal["console", "json", "junit", "markdown"]

__all__ = ["REPORT_FORMATS", "ReportFormat", "ReportWriter", "make_writer"]

REPORT_FORMATS: tuple[ReportFormat, ...] = get_args(ReportFormat)


class ReportWriter(Protocol):
    """What the runner needs from a report: cases as they finish, then the totals."""

    def add_case(self, case: CaseResult) -> None:
        """Takes one finished case; called once per case, in completion order."""
        ...

    def finish(self, summary: RunSummary) -> None:
        """Writes the report (or its remaining part) and releases any spool file.

        Called exactly once, after the last ``add_case``, also for interrupted runs.
        """
        ...


def make_writer(fmt: ReportFormat, out: IO[str]) -> ReportWriter:
    """Returns the writer of one report format, writing to ``out``.

    Args:
        fmt: ``console``, ``json``, ``junit`` or ``markdown``.
        out: A text stream; the writer never closes it.

    Raises:
        ValueError: ``fmt`` names no known format.
    """
    if fmt == "console":
        from verifier.report.console import ConsoleReportWriter

        return ConsoleReportWriter(out)
    if fmt == "json":
        from verifier.report.json_report import JsonReportWriter

        return JsonReportWriter(out)
    if fmt == "junit":
        from verifier.report.junit import JunitReportWriter

        return JunitReportWriter(out)
    if fmt == "markdown":
        from verifier.report.markdown import MarkdownReportWriter

        return MarkdownReportWriter(out)
    raise ValueError(f"unknown report format {fmt!r}; expected one of {REPORT_FORMATS}")
