"""A contract's pass-rate trends from its runs' records alone, without reading a row.

Every run that ended records its per-claim tallies (the summary's
``assertion_breakdown``), so the trend of each claim over runs, and its degradation
alerts by the audit's own rule (``verifier.analyses.trends.degradation_alerts``), cost
one read of the runs table however many rows the store holds. Two things differ
from ``verifier audit``, which counts the rows themselves:

- a day is the UTC day a run *started*, where the audit counts each row on the day
  it was recorded (the same for any run that does not cross midnight);
- a run that recorded no tallies (still running, or interrupted before its end was
  written) is left out, and counted, so the page can say so.

Runs of one ``--variant`` are a history of their own (``CONTRACT@VARIANT``), as in
the audit; a run has no rate for a claim it did not check (every row skipped: judges
off, every case gated out or not applicable).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from verifier.analyses.trends import (
    ClaimTrend,
    DayRate,
    DegradationAlert,
    RunRate,
    RunRef,
    degradation_alerts,
)
from verifier.analyses.window import DEFAULT_WINDOW, Window, parse_window
from verifier.gaps.store import RunRecord
from verifier.results import ClaimTally

__all__ = ["SummaryTrends", "series_of", "summary_trends"]


@dataclass(frozen=True, slots=True)
class SummaryTrends:
    """A contract's claim trends and alerts, read from its run records.

    Attributes:
        contract_id: The contract.
        runs: Its runs with tallies, in the order they started (series names in
            ``contract_id``: ``CONTRACT@VARIANT`` for a variant's runs).
        claims: One trend per series and claim.
        alerts: Degradation alerts over those trends.
        untallied: Runs of the contract that recorded no tallies (left out).
        window: The rolling window of the alerts: a count of runs or a span of time.
    """

    contract_id: str
    runs: tuple[RunRef, ...]
    claims: tuple[ClaimTrend, ...]
    alerts: tuple[DegradationAlert, ...]
    untallied: tuple[str, ...]
    window: Window


def series_of(record: RunRecord) -> str:
    """The history a run belongs to: its contract, or ``CONTRACT@VARIANT``."""
    variant = record.options.get("variant")
    return (
        f"{record.contract_id}@{variant}"
        if isinstance(variant, str) and variant
        else (record.contract_id)
    )


def _count(raw: Any) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else 0


def _tally(raw: Mapping[str, Any]) -> ClaimTally:
    return ClaimTally(
        passed=_count(raw.get("passed")),
        failed=_count(raw.get("failed")),
        errors=_count(raw.get("errors")),
        skipped=_count(raw.get("skipped")),
        not_applicable=_count(raw.get("not_applicable")),
    )


def _tallies(record: RunRecord) -> dict[str, ClaimTally] | None:
    breakdown = record.summary.get("assertion_breakdown")
    if not isinstance(breakdown, Mapping):
        return None
    tallies = {}
    for claim_id, raw in breakdown.items():
        if not isinstance(raw, Mapping):
            continue
        tally = _tally(raw)
        if tally.checked:  # else every row was skipped: no rate here
            tallies[str(claim_id)] = tally
    return tallies


def summary_trends(
    records: Iterable[RunRecord], contract_id: str, *, window: Window | int | str = DEFAULT_WINDOW
) -> SummaryTrends:
    """The trends of ``contract_id``'s claims over its runs, from the run records.

    Args:
        records: The store's runs (``GapStore.runs()``); other contracts' are ignored.
        contract_id: The contract.
        window: The earlier runs a run's pass rate is compared with (``parse_window``).
    """
    window = parse_window(window)
    mine = sorted((r for r in records if r.contract_id == contract_id), key=lambda r: r.started_at)
    refs: list[RunRef] = []
    untallied: list[str] = []
    by_run: dict[tuple[str, str], list[RunRate]] = {}
    by_day: dict[tuple[str, str], dict[str, ClaimTally]] = {}
    for record in mine:
        tallies = _tallies(record)
        if tallies is None:
            untallied.append(record.run_id)
            continue
        series = series_of(record)
        refs.append(RunRef(record.run_id, series, record.started_at, len(refs)))
        day = record.started_at[:10]
        for claim_id, tally in tallies.items():
            key = (series, claim_id)
            by_run.setdefault(key, []).append(RunRate(record.run_id, record.started_at, tally))
            total = by_day.setdefault(key, {}).setdefault(day, ClaimTally())
            total.passed += tally.passed
            total.failed += tally.failed
            total.errors += tally.errors
            total.skipped += tally.skipped
            total.not_applicable += tally.not_applicable
    claims = tuple(
        ClaimTrend(
            series,
            claim_id,
            tuple(rates),
            tuple(DayRate(d, t) for d, t in sorted(by_day[series, claim_id].items())),
        )
        for (series, claim_id), rates in sorted(by_run.items())
    )
    position = {ref.run_id: n for n, ref in enumerate(refs)}
    alerts = sorted(
        (a for trend in claims for a in degradation_alerts(trend, window)),
        key=lambda a: (position[a.run_id], a.contract_id, a.claim_id),
    )
    return SummaryTrends(contract_id, tuple(refs), claims, tuple(alerts), tuple(untallied), window)
