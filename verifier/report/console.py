"""Console output with rich: the run's summary, per-claim table, each failing claim's
top reasons with counts, and the first failing cases with an excerpt of their output
(drawn by ``verifier.report._console_tables``). The progress bar on stderr is
``verifier.report.progress``.

rich is imported when the report is printed, at the end of a run: importing it costs
about a tenth of a second, which would otherwise delay a run's first judge call.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from verifier.report._failures import FailingCaseSample
from verifier.report._reasons import ReasonTally
from verifier.results import CaseResult, ClaimTally, RunSummary

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["MAX_FAILING_CASES", "ConsoleReportWriter", "rate_style"]

MAX_FAILING_CASES = 20
"""Failing cases shown on the console; the rest are counted."""

# Below this pass rate a claim is a problem, not a wobble.
_WARN_RATE = 0.8


def rate_style(tally: ClaimTally) -> str:
    """Returns the rich style of a claim's pass rate: green, yellow or red (dim when it
    has none)."""
    rate = tally.pass_rate
    if rate is None:
        return "dim"
    if rate >= 1.0:
        return "green"
    return "yellow" if rate >= _WARN_RATE else "red"


class ConsoleReportWriter:
    """Prints the run's summary to a console in :meth:`finish`.

    Args:
        out: The stream a console is made for when ``console`` is not given.
        console: A ready console (tests pass one with a fixed width).
        max_failing_cases: How many failing cases to show.
    """

    def __init__(
        self,
        out: IO[str],
        *,
        console: Console | None = None,
        max_failing_cases: int = MAX_FAILING_CASES,
    ) -> None:
        self._out = out
        self._console = console
        self._failures = FailingCaseSample(limit=max_failing_cases)
        self._reasons = ReasonTally()

    def add_case(self, case: CaseResult) -> None:
        """Counts the reasons of ``case``'s failures and remembers it if it is among
        the first failing ones."""
        self._failures.add(case)
        self._reasons.add(case)

    def finish(self, summary: RunSummary) -> None:
        """Prints the summary panel, the claim table, why claims did not pass and the
        first failing cases."""
        # Deferred: see the module's docstring.
        from rich.console import Console

        from verifier.report._console_tables import print_report

        console = self._console if self._console is not None else Console(file=self._out)
        print_report(console, summary, self._failures, self._reasons)
