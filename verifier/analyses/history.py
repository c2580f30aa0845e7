"""The audit with the store's history: integrity, judge drift, pass-rate trends, alerts.

One pass over the rows feeds the integrity checks and both analyses (see
``RowObserver``). Integrity problems fail the audit; drift and trends are findings;
degradation alerts fail it only when the caller asks (``--fail-on-alert``). A change
of judge triple that a recorded succession explains is set apart from drift and named
(``verifier.analyses.lineage``).

With a ``run_id``, the row-level integrity checks, the drift changes and the alerts
are those of that run, judged against the whole history before it; the trends always
cover the whole store.

Given the store's judge successions (``Lineage``), the trends mark where a claim's
change of triple is one a succession explains, and each alert whose window spans such
a change names it (``verifier.analyses.crossings``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from verifier.analyses._audit_report import JudgeNoiseObserver
from verifier.analyses.alert_memory import alert_document
from verifier.analyses.audit import AuditReport, audit_store
from verifier.analyses.crossings import succession_crossings
from verifier.analyses.drift import DriftChange, JudgeDriftObserver, ServedMismatch
from verifier.analyses.lineage import explain_drift
from verifier.analyses.trends import DegradationAlert, PassRateObserver, PassRateTrends
from verifier.analyses.window import DEFAULT_WINDOW, Window, WindowShortfall, parse_window
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage

__all__ = ["HistoryAudit", "audit_history"]


@dataclass(frozen=True, slots=True)
class HistoryAudit:
    """What ``audit_history`` found.

    Attributes:
        integrity: The integrity audit (schema, columns, chain, triples, runs).
        drift: Changes of judge triple (of ``run_id`` only, when given).
        trends: Pass rate per claim per run and per day, over the whole store, and
            where claims cross the judge successions of the lineage given.
        alerts: Degradation alerts (of ``run_id`` only, when given).
        window: The rolling window the alerts used: a count of runs or a span of time.
        mismatches: Judges served by another model than the contract asked for (of
            ``run_id`` only, when given).
        successions: Changes of judge triple a recorded succession explains, each
            with its ``succession`` line (of ``run_id`` only, when given): not drift.
        shortfalls: Claims whose last run (``run_id``, when given) had too few earlier
            runs in its window to be judged.
    """

    integrity: AuditReport
    drift: tuple[DriftChange, ...]
    trends: PassRateTrends
    alerts: tuple[DegradationAlert, ...]
    window: Window
    mismatches: tuple[ServedMismatch, ...] = ()
    successions: tuple[DriftChange, ...] = ()
    shortfalls: tuple[WindowShortfall, ...] = ()

    @property
    def run_id(self) -> str | None:
        return self.integrity.run_id

    def failed(self, *, fail_on_alert: bool = False) -> bool:
        """Whether the audit fails: on integrity problems, and on alerts if asked."""
        return not self.integrity.ok or (fail_on_alert and bool(self.alerts))

    def as_dict(self) -> dict[str, Any]:
        """The integrity report's keys, plus ``window`` (and ``window_kind``), ``drift``,
        ``successions``, ``alerts``, ``not_judged``, ``trends``."""
        return {
            **self.integrity.as_dict(),
            **self.window.as_dict(),
            "drift": [change.as_dict() for change in self.drift],
            "successions": [change.as_dict() for change in self.successions],
            "served_mismatches": [m.as_dict() for m in self.mismatches],
            "alerts": [alert_document(alert) for alert in self.alerts],
            "not_judged": [shortfall.as_dict() for shortfall in self.shortfalls],
            "trends": self.trends.as_dict(),
        }


def audit_history(
    store: GapStore,
    run_id: str | None = None,
    *,
    window: Window | int | str = DEFAULT_WINDOW,
    max_problems: int = 1000,
    expect_head: str | None = None,
    lineage: Lineage | None = None,
) -> HistoryAudit:
    """Audits a store's integrity and analyses its history in one pass over the rows.

    Args:
        store: The store to read.
        run_id: Limit the row checks, drift changes and alerts to this run.
        window: The earlier runs a run's pass rate is compared with: a count (``5``)
            or a span of time before the run (``"4w"``, ``"28d"``, ``"12h"``); see
            ``verifier.analyses.window.parse_window``.
        max_problems: How many integrity problems to keep.
        expect_head: A head published earlier, which the seal chain must still hold.
        lineage: Judge successions (default: the store's, read in the audit's
            snapshot): the trends mark where claims cross them, alerts whose window
            spans one name it, and a judge change one explains is not drift.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run.
        ValueError: ``window`` is not a window (a count below ``MIN_PRIOR_RUNS``, or
            no span such as ``4w``).
    """
    window = parse_window(window)
    rates, judges, noise = PassRateObserver(), JudgeDriftObserver(), JudgeNoiseObserver(run_id)
    # The trends' runs are those of the snapshot the audit read, not of a later moment.
    with store.snapshot():
        integrity = audit_store(
            store,
            run_id,
            max_problems=max_problems,
            observers=(rates, judges, noise),
            expect_head=expect_head,
        )
        records = store.runs()
        if lineage is None:
            lineage = Lineage.of_store(store)
    integrity.judge_noise = noise.noise
    trends = rates.trends(records)
    changes = judges.changes([ref.run_id for ref in trends.runs])
    if lineage:
        trends = replace(trends, crossings=succession_crossings(changes, lineage))
    alerts = trends.alerts(window)
    if run_id is not None:
        changes = [change for change in changes if change.run_id == run_id]
        alerts = [alert for alert in alerts if alert.run_id == run_id]
    drift, successions = explain_drift(changes, lineage)
    mismatches = tuple(judges.mismatches(run_id))
    shortfalls = tuple(trends.shortfalls(window, run_id))
    return HistoryAudit(
        integrity,
        tuple(drift),
        trends,
        tuple(alerts),
        window,
        mismatches,
        tuple(successions),
        shortfalls,
    )
