"""The rolling window of degradation alerts: a count of runs, or a span of time.

Every surface that takes a window (``verifier audit --window``, ``verifier report
--trend --window``, the viewer's ``/view/trends?window=``, the MCP audit tool,
``audit_history(window=...)``) reads it with ``parse_window``:

- a plain integer (``5``) is a count: the claim's previous N runs (fewer when the
  history is shorter), at least ``MIN_PRIOR_RUNS``;
- a number with a unit (``12h``, ``28d``, ``4w``) is a span of time: the claim's runs
  that started within that span before the run, by each run's start time.

Either way a run is judged only when at least ``MIN_PRIOR_RUNS`` earlier runs fall in
its window; a time window with fewer is not an error: the run is not judged, and the
audit says why (``WindowShortfall``: a claim's last run, or the run audited). A count
window says nothing of a history too young to judge, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

__all__ = [
    "DEFAULT_WINDOW",
    "MIN_PRIOR_RUNS",
    "Window",
    "WindowShortfall",
    "parse_window",
]

MIN_PRIOR_RUNS = 3
"""Earlier runs a run's window must hold to be judged: two points give no usable spread."""

_MAX_RUNS = 100_000
_UNITS = {"h": ("hour", 3600), "d": ("day", 86_400), "w": ("week", 604_800)}
_MAX_SECONDS = 10 * 366 * 86_400
_SPAN = re.compile(r"([1-9][0-9]{0,5})([hdw])")


@dataclass(frozen=True, slots=True)
class Window:
    """A rolling window: ``runs`` earlier runs, or the runs of the ``seconds`` before.

    Attributes:
        text: The window as written (``5``, ``4w``), which ``parse_window`` reads back.
        kind: ``runs`` or ``time``.
        size: The count of runs, or the span's length in seconds.
    """

    text: str
    kind: Literal["runs", "time"]
    size: int

    def start(self, stamps: Sequence[str], n: int) -> int:
        """Where the window of the ``n``-th run begins among runs started at ``stamps``
        (history order): its earlier runs are ``n`` minus that many."""
        if self.kind == "runs":
            return max(0, n - self.size)
        now = _instant(stamps[n])
        if now is None:
            return n  # an unreadable start time has no span before it
        since = now - timedelta(seconds=self.size)
        first = n
        while first > 0:
            then = _instant(stamps[first - 1])
            if then is None or then < since:
                break
            first -= 1
        return first

    def describe(self) -> str:
        """``5 runs``, ``4 weeks``: what the window holds, for a heading."""
        if self.kind == "runs":
            return f"{self.size} runs"
        count = int(self.text[:-1])
        noun = _UNITS[self.text[-1]][0]
        return f"{count} {noun}{'' if count == 1 else 's'}"

    def earlier(self) -> str:
        """``the previous 5 runs``, ``the runs started within 4 weeks before``."""
        if self.kind == "runs":
            return f"the previous {self.size} runs"
        return f"the runs started within {self.describe()} before"

    def as_dict(self) -> dict[str, Any]:
        """``window`` as written (an int for runs), ``window_kind`` and for time
        ``window_seconds``: the keys an audit's JSON carries."""
        if self.kind == "runs":
            return {"window": self.size, "window_kind": "runs"}
        return {"window": self.text, "window_kind": "time", "window_seconds": self.size}


DEFAULT_WINDOW = Window("5", "runs", 5)
"""Five earlier runs."""


@dataclass(frozen=True, slots=True)
class WindowShortfall:
    """A claim's run that was not judged: too few earlier runs fell in its window."""

    contract_id: str
    claim_id: str
    run_id: str
    started_at: str
    prior_runs: int
    window: Window

    def describe(self) -> str:
        """One line: the claim, the run, and why no alert could be computed for it."""
        span = self.window.describe()
        span = "" if self.window.kind == "runs" else f" started within {span} before it"
        return (
            f"{self.contract_id}/{self.claim_id} at run {self.run_id} ({self.started_at}): "
            f"not judged, {self.prior_runs} earlier run(s){span} ({MIN_PRIOR_RUNS} needed)"
        )

    def as_dict(self) -> dict[str, Any]:
        named = ("contract_id", "claim_id", "run_id", "started_at", "prior_runs")
        return {
            **{name: getattr(self, name) for name in named},
            "needed": MIN_PRIOR_RUNS,
            "reason": self.describe(),
        }


def parse_window(value: Window | int | str) -> Window:
    """Reads a window: an integer count of runs, or a span such as ``4w``, ``28d``, ``12h``.

    Raises:
        ValueError: A one-line reason the value is not a window.
    """
    if isinstance(value, Window):
        return value
    if isinstance(value, bool):
        raise ValueError(f"window {value!r} is not a count of runs or a span such as 4w")
    text = str(value).strip().lower()
    if re.fullmatch(r"[0-9]+", text):
        runs = int(text)
        if not MIN_PRIOR_RUNS <= runs <= _MAX_RUNS:
            raise ValueError(
                f"window {text} runs: a window needs at least {MIN_PRIOR_RUNS} runs "
                f"(at most {_MAX_RUNS})"
            )
        return Window(str(runs), "runs", runs)
    match = _SPAN.fullmatch(text)
    if match is None:
        shown = str(value)[:40]
        raise ValueError(
            f"window {shown!r} is neither a count of runs (5) nor a span of hours, days "
            "or weeks (12h, 28d, 4w)"
        )
    seconds = int(match[1]) * _UNITS[match[2]][1]
    if seconds > _MAX_SECONDS:
        raise ValueError(f"window {text} is longer than ten years")
    return Window(f"{int(match[1])}{match[2]}", "time", seconds)


def _instant(stamp: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
