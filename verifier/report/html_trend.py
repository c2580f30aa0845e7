"""The HTML trend page of a store: each claim's pass rate over runs and days, with alerts.

The figures are the audit's own (``audit_history``: one pass over the store feeding
the integrity checks, ``PassRateObserver`` and ``JudgeDriftObserver``), so the page
and ``verifier audit`` can never disagree. Each claim gets two line plots (inline SVG
drawn in Python): its pass rate run by run, in the order the runs started, with every
degradation alert ringed, and day by day (UTC). The page has no script (ADR 0010).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from verifier import __version__
from verifier.gaps.history import HistoryAudit, audit_history
from verifier.gaps.store import GapStore
from verifier.gaps.trends import DEFAULT_WINDOW, ClaimTrend, DegradationAlert
from verifier.report._html_page import content_security_policy, environment, write_atomically
from verifier.report._svg import LinePoint, line_plot

__all__ = ["ClaimPlots", "render_trend_html", "write_trend_html"]

MAX_PROBLEMS_SHOWN = 50
"""Integrity problems listed on the page; ``verifier audit`` lists them all."""


@dataclass(frozen=True, slots=True)
class ClaimPlots:
    """One claim's two plots and its latest pass rate."""

    name: str
    by_run: Markup
    by_day: Markup
    latest: float
    alerts: int


def claim_plots(
    trend: ClaimTrend, run_slots: dict[str, int], day_slots: dict[str, int], alerts: dict[Any, str]
) -> ClaimPlots:
    """The plots of one claim over the store's runs and days.

    Args:
        trend: The claim's rates.
        run_slots: Position of every run of the store in history order.
        day_slots: Position of every day any claim has results on.
        alerts: Alert text by ``(contract_id, claim_id, run_id)``.
    """
    runs = [
        LinePoint(
            run_slots[rate.run_id],
            rate.tally.pass_rate,
            f"run {rate.run_id} ({rate.started_at}), {rate.tally.total} results",
            alerts.get((trend.contract_id, trend.claim_id, rate.run_id)),
        )
        for rate in trend.runs
    ]
    days = [
        LinePoint(day_slots[d.day], d.tally.pass_rate, f"{d.day}, {d.tally.total} results")
        for d in trend.days
    ]
    return ClaimPlots(
        trend.name,
        line_plot(runs, slots=list(run_slots), claim=trend.name, axis="run"),
        line_plot(days, slots=list(day_slots), claim=trend.name, axis="day"),
        trend.runs[-1].tally.pass_rate if trend.runs else 0.0,
        sum(p.alert is not None for p in runs),
    )


def render_trend_html(history: HistoryAudit, *, every_alert: list[DegradationAlert]) -> str:
    """The trend page, as text.

    Args:
        history: The audit of the store (its ``alerts`` are those listed).
        every_alert: The alerts of the whole history, ringed on the plots.
    """
    trends = history.trends
    run_slots = {ref.run_id: n for n, ref in enumerate(trends.runs)}
    day_slots = {
        day: n for n, day in enumerate(sorted({d.day for t in trends.claims for d in t.days}))
    }
    ringed = {(a.contract_id, a.claim_id, a.run_id): a.describe() for a in every_alert}
    integrity = history.integrity
    context: dict[str, Any] = {
        "title": f"verifier trends: {integrity.location}",
        "version": __version__,
        "csp": content_security_policy(None),
        "script": None,
        "history": history,
        "integrity_head": integrity.render_text().splitlines()[0],
        "problems": integrity.problems[:MAX_PROBLEMS_SHOWN],
        "problem_count": len(integrity.problems) + integrity.omitted_problems,
        "plots": [claim_plots(t, run_slots, day_slots, ringed) for t in trends.claims],
        "days": len(day_slots),
    }
    return environment().get_template("trend.html.j2").render(context)


def write_trend_html(
    store: GapStore, path: Path, *, run_id: str | None = None, window: int = DEFAULT_WINDOW
) -> HistoryAudit:
    """Audits ``store`` with its history and writes the trend page to ``path``.

    Args:
        store: The store to read.
        path: The file to write; replaced whole, never left half written.
        run_id: List only this run's alerts and drift (the plots still show every run).
        window: How many earlier runs a run's pass rate is compared with.

    Returns:
        The audit the page shows.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run.
        OutputError: The file cannot be written.
    """
    history = audit_history(store, run_id, window=window)
    every_alert = history.trends.alerts(window) if run_id else list(history.alerts)
    write_atomically(path, [render_trend_html(history, every_alert=every_alert)])
    return history
