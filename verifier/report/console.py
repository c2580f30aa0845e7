"""Console output with rich: the run's summary, per-claim table, each failing claim's
top reasons with counts, and the first failing cases with an excerpt of their output.

Also the runner's progress bar, which lives on stderr so that stdout stays clean
for a report piped elsewhere.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import IO, TextIO

from rich.console import Console
from rich.panel import Panel
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from verifier._terminal import printable, printable_line
from verifier.report._failures import FailingCaseSample
from verifier.report._reasons import ClaimReasons, ReasonTally
from verifier.results import CaseResult, ClaimTally, JudgeNoise, RunSummary, served_line

__all__ = ["MAX_FAILING_CASES", "ConsoleReportWriter", "ProgressReporter", "rate_style"]

MAX_FAILING_CASES = 20
"""Failing cases shown on the console; the rest are counted."""

# Below this pass rate a claim is a problem, not a wobble.
_WARN_RATE = 0.8


def rate_style(tally: ClaimTally) -> str:
    """Returns the rich style of a claim's pass rate: green, yellow or red."""
    if tally.applicable == 0:
        return "dim"
    if tally.pass_rate >= 1.0:
        return "green"
    return "yellow" if tally.pass_rate >= _WARN_RATE else "red"


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
        self._console = console if console is not None else Console(file=out)
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
        console = self._console
        console.print(_summary_panel(summary))
        console.print(_breakdown_table(summary.breakdown))
        if summary.judge_noise:
            console.print(_noise_table(summary.judge_noise))
            for claim_id, figures in summary.judge_noise_dict().items():
                if served := served_line(figures):
                    # One line whatever the width: the model ids are what a reader greps.
                    line = Text(printable_line(f"claim {claim_id}: {served}"), style="yellow")
                    console.print(line, soft_wrap=True)
        for warning in summary.warnings:
            console.print(Text(printable_line(f"warning: {warning}"), style="yellow"))
        reasons = self._reasons.top()
        if reasons:
            console.print(_reasons_table(reasons))
        if self._failures.total:
            console.print(_failures_table(self._failures))
        if self._failures.left_out:
            console.print(
                Text(
                    f"…and {self._failures.left_out} more failing cases; "
                    "the JSON report and the gap store have them all.",
                    style="dim",
                )
            )
        console.file.flush()


def _summary_panel(summary: RunSummary) -> Panel:
    ok = summary.failed_cases == 0 and not summary.interrupted
    text = Text()
    if ok:
        text.append(f"✔ all {summary.total_cases} cases passed", style="bold green")
    else:
        text.append(
            f"✘ {summary.failed_cases} of {summary.total_cases} cases failed", style="bold red"
        )
    text.append(printable(f" · average score {summary.average_score:.3f} · run {summary.run_id}"))
    if summary.interrupted:
        text.append("\ninterrupted: totals cover the cases that finished", style="yellow")
    usage = summary.judge_usage_line()
    if usage:
        text.append(f"\n{usage}", style="dim")
    if summary.store:
        text.append(printable(f"\nresults stored in {summary.store}"), style="dim")
    title = Text(printable_line(f"verifier · {summary.contract_id} v{summary.contract_version}"))
    return Panel(
        text, title=title, title_align="left", expand=False, border_style="green" if ok else "red"
    )


def _breakdown_table(breakdown: dict[str, ClaimTally]) -> Table:
    table = Table(title="Claims", title_justify="left")
    table.add_column("claim")
    for name in ("pass rate", "passed", "failed", "errors", "skipped"):
        table.add_column(name, justify="right")
    for claim_id, tally in breakdown.items():
        table.add_row(
            Text(printable_line(claim_id)),
            Text(f"{tally.pass_rate:.1%}", style=rate_style(tally)),
            str(tally.passed),
            str(tally.failed),
            str(tally.errors),
            tally.skipped_text,
        )
    return table


def _noise_table(noise: dict[str, JudgeNoise]) -> Table:
    table = Table(title="Judge noise", title_justify="left")
    table.add_column("claim")
    for name in ("verdicts", "pass rate (95% CI)", "position flips", "sample agreement"):
        table.add_column(name, justify="right")
    for claim_id, claim in noise.items():
        figures = claim.as_dict()
        rate, (low, high) = figures["pass_rate"], figures["pass_rate_ci95"]
        flips = "—" if not claim.pairwise else f"{claim.flips}/{claim.pairwise}"
        if claim.pairwise:
            flips += f" ({figures['flip_rate']:.1%})"
        agreement = figures["sample_agreement"]
        table.add_row(
            Text(printable_line(claim_id)),
            str(claim.verdicts),
            "—" if rate is None else f"{rate:.1%} ({low:.1%}-{high:.1%})",
            flips,
            "—" if agreement is None else f"{agreement:.1%}",
        )
    return table


def _reasons_table(claims: list[ClaimReasons]) -> Table:
    table = Table(title="Why claims did not pass (top reasons)", title_justify="left")
    table.add_column("claim")
    table.add_column("results", justify="right")
    table.add_column("reason", overflow="fold")
    for claim in claims:
        claim_cell = Text(printable_line(claim.claim_id))
        for top in claim.top:
            table.add_row(claim_cell, str(top.count), Text(top.reason))
            claim_cell = Text("")
        if claim.others:
            table.add_row(claim_cell, str(claim.others), Text("other reasons", style="dim"))
    return table


def _failures_table(failures: FailingCaseSample) -> Table:
    shown = len(failures.cases)
    title = f"Failing cases ({shown})"
    if shown < failures.total:
        title = f"Failing cases (first {shown} of {failures.total})"
    table = Table(title=title, title_justify="left")
    table.add_column("case")
    table.add_column("claim")
    table.add_column("status")
    table.add_column("reason", overflow="fold")
    for case in failures.cases:
        # Reasons and excerpts are escaped by one_line already; ids are not.
        case_cell = Text(f"{printable_line(case.case_id)} ({case.score:.2f})")
        for claim in case.claims:
            # Text, never a markup string: reasons quote model output, and
            # "[red]" in an output must print as written.
            table.add_row(
                case_cell,
                Text(printable_line(claim.claim_id)),
                Text(claim.status, style="red" if claim.status == "fail" else "magenta"),
                Text(claim.reason),
            )
            case_cell = Text("")
        if case.excerpt is not None:
            table.add_row(
                case_cell, Text("↳ output", style="dim"), Text(""), Text(case.excerpt, style="dim")
            )
    return table


class ProgressReporter:
    """A progress bar of finished cases on stderr, for interactive runs only.

    The bar appears only when the stream is a terminal, ``CI`` is not set, and
    the run is still going ``delay`` seconds after :meth:`start`, so quick runs
    and logs captured by CI stay free of bar frames.

    Args:
        stream: Where the bar is drawn; ``sys.stderr`` by default.
        delay: Seconds of running before the bar appears.
        enabled: Force the bar on or off; ``None`` decides from the stream and ``CI``.
    """

    def __init__(
        self, *, stream: TextIO | None = None, delay: float = 0.5, enabled: bool | None = None
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._delay = delay
        self.enabled = _interactive(self._stream) if enabled is None else enabled
        self._lock = threading.Lock()
        self._total: int | None = None
        self._done = 0
        self._judged_per_case = 0
        self._judged = 0
        self._closed = False
        self._timer: threading.Timer | None = None
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._status: Callable[[], str] | None = None

    def set_status(self, status: Callable[[], str]) -> None:
        """Shows ``status()`` beside the bar, re-read at every refresh (judge counters)."""
        self._status = status

    @property
    def shown(self) -> bool:
        """Whether the bar has been drawn."""
        return self._progress is not None

    def start(self, total: int | None, judged_per_case: int = 0) -> None:
        """Starts timing the run.

        Args:
            total: The number of cases, if known.
            judged_per_case: Judge and comparative claims per case (0: the bar shows
                no judge count).
        """
        self._total = total
        self._judged_per_case = judged_per_case
        if self.enabled and self._timer is None:
            # A timer, not a check in advance(): a run stuck on slow judge calls
            # before its first case must still show that it is alive.
            self._timer = threading.Timer(self._delay, self._show)
            self._timer.daemon = True
            self._timer.start()

    def advance(self, n_cases: int = 1) -> None:
        """Counts ``n_cases`` more finished cases."""
        with self._lock:
            self._done += n_cases
            if self._progress is not None and self._task is not None:
                self._progress.update(self._task, completed=self._done)

    def judged(self, n_results: int) -> None:
        """Counts ``n_results`` more judge and comparative verdicts settled."""
        with self._lock:
            self._judged += n_results

    def judge_count(self) -> str:
        """``judge verdicts 12/80``: settled out of all the run needs (when known)."""
        total = self._total
        if total is None:
            return f"judge verdicts {self._judged}"
        return f"judge verdicts {self._judged}/{total * self._judged_per_case}"

    def close(self) -> None:
        """Stops the bar (if shown) and its timer; safe to call more than once."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._progress is not None:
                self._progress.stop()

    def __enter__(self) -> ProgressReporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _show(self) -> None:
        with self._lock:
            if self._closed:
                return
            progress = Progress(
                SpinnerColumn(),
                TextColumn("cases"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                *([_StatusColumn(self.judge_count)] if self._judged_per_case else []),
                *([_StatusColumn(self._status)] if self._status else []),
                console=Console(file=self._stream),
                transient=True,
                # stdout may carry a report piped elsewhere: never pull it into
                # the bar's stream. Log lines on stderr are drawn above the bar.
                redirect_stdout=False,
                redirect_stderr=True,
            )
            self._task = progress.add_task("cases", total=self._total, completed=self._done)
            progress.start()
            self._progress = progress


class _StatusColumn(ProgressColumn):
    """Text from a callable, evaluated at render time so it stays current mid-chunk."""

    def __init__(self, status: Callable[[], str]) -> None:
        super().__init__()
        self._status = status

    def render(self, task: Task) -> Text:
        return Text(self._status(), style="dim")


def _interactive(stream: TextIO) -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    if ci not in ("", "0", "false", "no"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
