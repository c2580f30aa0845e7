"""The runner's progress bar, which lives on stderr so that stdout stays clean for a
report piped elsewhere.

rich is imported when the bar is first drawn (``verifier.report._progress_bar``): a
run that ends before the bar's delay, or whose stderr is no terminal, never imports it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["ProgressReporter"]


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
        # Deferred: see the module's docstring.
        from verifier.report._progress_bar import start_bar

        with self._lock:
            if self._closed:
                return
            statuses = [
                *([self.judge_count] if self._judged_per_case else []),
                *([self._status] if self._status else []),
            ]
            self._progress, self._task = start_bar(self._stream, self._total, self._done, statuses)


def _interactive(stream: TextIO) -> bool:
    ci = os.environ.get("CI", "").strip().lower()
    if ci not in ("", "0", "false", "no"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
