"""The rich progress bar of ``verifier.report.progress``, imported when it is drawn."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from rich.console import Console
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
from rich.text import Text

__all__ = ["start_bar"]


def start_bar(
    stream: TextIO, total: int | None, completed: int, statuses: list[Callable[[], str]]
) -> tuple[Progress, TaskID]:
    """Draws the bar of finished cases on ``stream``, with each status text beside it."""
    progress = Progress(
        SpinnerColumn(),
        TextColumn("cases"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        *(_StatusColumn(status) for status in statuses),
        console=Console(file=stream),
        transient=True,
        # stdout may carry a report piped elsewhere: never pull it into
        # the bar's stream. Log lines on stderr are drawn above the bar.
        redirect_stdout=False,
        redirect_stderr=True,
    )
    task = progress.add_task("cases", total=total, completed=completed)
    progress.start()
    return progress, task


class _StatusColumn(ProgressColumn):
    """Text from a callable, evaluated at render time so it stays current mid-chunk."""

    def __init__(self, status: Callable[[], str]) -> None:
        super().__init__()
        self._status = status

    def render(self, task: Task) -> Text:
        return Text(self._status(), style="dim")
