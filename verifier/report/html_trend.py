"""The HTML trend page of a store: each claim's pass rate over runs and days, with alerts.

The figures are the audit's own (``audit_history``: one pass over the store feeding
the integrity checks, ``PassRateObserver`` and ``JudgeDriftObserver``), so the page
and ``verifier audit`` can never disagree. Claims are grouped by contract, and each
contract has its own axes: its runs, in the order they started, and the UTC days it
has results on. Each claim is one row of its contract's table with two small line
plots (inline SVG drawn in Python), by run with every degradation alert ringed, and
by day; a plot that would have a single point shows its figure instead, so a page of
thirty claims stays one screen of rows. A judge succession a contract's claims cross
(``PassRateTrends.marks``) is a dashed line before the first run under the new judge
on the run plots of the claims that judge judges, and a line above its table. The page
has no script (ADR 0010).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from verifier import __version__
from verifier.analyses.crossings import SuccessionMark
from verifier.analyses.history import HistoryAudit, audit_history
from verifier.analyses.trends import ClaimTrend, DegradationAlert, RunRef
from verifier.analyses.window import DEFAULT_WINDOW, Window
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage
from verifier.report._html_page import content_security_policy, environment, write_atomically
from verifier.report._svg import AxisMark, LinePoint, sparkline

__all__ = ["ClaimPlots", "ContractTrends", "render_trend_html", "write_trend_html"]

MAX_PROBLEMS_SHOWN = 50
"""Integrity problems listed on the page; ``verifier audit`` lists them all."""


@dataclass(frozen=True, slots=True)
class ClaimPlots:
    """One claim's row: its two plots (``None`` where a single point would be drawn;
    the figure beside it says what it would have shown) and its latest pass rate."""

    name: str
    claim_id: str
    by_run: Markup | None
    by_day: Markup | None
    latest: float
    alerts: int
    run_figure: str
    day_figure: str


@dataclass(frozen=True, slots=True)
class ContractTrends:
    """One contract's axes (its runs and days), its claims' rows, and the judge
    successions on its run axis."""

    contract_id: str
    runs: tuple[RunRef, ...]
    days: tuple[str, ...]
    claims: tuple[ClaimPlots, ...]
    marks: tuple[SuccessionMark, ...] = ()

    @property
    def alerts(self) -> int:
        return sum(claim.alerts for claim in self.claims)


def claim_plots(
    trend: ClaimTrend,
    run_slots: dict[str, int],
    day_slots: dict[str, int],
    alerts: dict[Any, str],
    marks: Sequence[AxisMark] = (),
) -> ClaimPlots:
    """The plots of one claim over its contract's runs and days.

    Args:
        trend: The claim's rates.
        run_slots: Position of every run of the contract in history order.
        day_slots: Position of every day the contract has results on.
        alerts: Alert text by ``(contract_id, claim_id, run_id)``.
        marks: The judge successions on the contract's run axis.
    """
    runs = [
        LinePoint(
            run_slots[rate.run_id],
            rate.pass_rate,
            f"run {rate.run_id} ({rate.started_at}), {rate.tally.total} results",
            alerts.get((trend.contract_id, trend.claim_id, rate.run_id)),
        )
        for rate in trend.runs
    ]
    days = [
        LinePoint(day_slots[d.day], d.pass_rate, f"{d.day}, {d.tally.total} results")
        for d in trend.days
    ]
    name = trend.name
    return ClaimPlots(
        name,
        trend.claim_id,
        sparkline(runs, slots=len(run_slots), claim=name, axis="run", marks=marks)
        if len(runs) > 1
        else None,
        sparkline(days, slots=len(day_slots), claim=name, axis="day") if len(days) > 1 else None,
        trend.runs[-1].pass_rate if trend.runs else 0.0,
        sum(p.alert is not None for p in runs),
        _figure(trend.runs[0].pass_rate, f"run {trend.runs[0].run_id}")
        if len(trend.runs) == 1
        else "",
        _figure(trend.days[0].pass_rate, trend.days[0].day) if len(trend.days) == 1 else "",
    )


def contract_trends(
    trends: tuple[ClaimTrend, ...],
    runs: tuple[RunRef, ...],
    alerts: dict[Any, str],
    marks: Sequence[SuccessionMark] = (),
) -> list[ContractTrends]:
    """The claims grouped by contract (in the order the contracts first ran), each
    contract's plots on its own runs and days, with the judge successions that fall on
    its runs."""
    groups: list[ContractTrends] = []
    for contract_id in dict.fromkeys(ref.contract_id for ref in runs):
        mine = [t for t in trends if t.contract_id == contract_id]
        if not mine:
            continue
        own_runs = tuple(ref for ref in runs if ref.contract_id == contract_id)
        run_slots = {ref.run_id: n for n, ref in enumerate(own_runs)}
        days = sorted({d.day for t in mine for d in t.days})
        day_slots = {day: n for n, day in enumerate(days)}
        own_marks = tuple(m for m in marks if m.run_id in run_slots)
        claims = tuple(
            claim_plots(t, run_slots, day_slots, alerts, _axis_marks(own_marks, t, run_slots))
            for t in mine
        )
        groups.append(ContractTrends(contract_id, own_runs, tuple(days), claims, own_marks))
    return groups


def _axis_marks(
    marks: Sequence[SuccessionMark], trend: ClaimTrend, run_slots: dict[str, int]
) -> list[AxisMark]:
    """The successions on the run plot of ``trend``: those its claim crosses."""
    return [
        AxisMark(run_slots[m.run_id], m.label, m.title, m.run_id)
        for m in marks
        if trend.claim_id in m.claims
    ]


def _figure(rate: float, where: str) -> str:
    return f"{100 * rate:.1f}% ({where})"


def render_trend_html(history: HistoryAudit, *, every_alert: list[DegradationAlert]) -> str:
    """The trend page, as text.

    Args:
        history: The audit of the store (its ``alerts`` are those listed).
        every_alert: The alerts of the whole history, ringed on the plots.
    """
    trends = history.trends
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
        "contracts": contract_trends(trends.claims, trends.runs, ringed, trends.marks),
        "days": trends.days,
    }
    return environment().get_template("trend.html.j2").render(context)


def write_trend_html(
    store: GapStore,
    path: Path,
    *,
    run_id: str | None = None,
    window: Window | int | str = DEFAULT_WINDOW,
    lineage: Lineage | None = None,
) -> HistoryAudit:
    """Audits ``store`` with its history and writes the trend page to ``path``.

    Args:
        store: The store to read.
        path: The file to write; replaced whole, never left half written.
        run_id: List only this run's alerts and drift (the plots still show every run).
        window: The earlier runs a run's pass rate is compared with: a count, or a
            span of time such as ``4w`` (``verifier.analyses.window.parse_window``).
        lineage: Judge successions (default: the store's), marked where claims cross them.

    Returns:
        The audit the page shows.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run.
        OutputError: The file cannot be written.
    """
    history = audit_history(store, run_id, window=window, lineage=lineage)
    every_alert = history.trends.alerts(history.window) if run_id else list(history.alerts)
    write_atomically(path, [render_trend_html(history, every_alert=every_alert)])
    return history
