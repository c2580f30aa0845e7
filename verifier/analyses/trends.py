"""Pass rates over time, per claim, per run and per UTC day, and degradation alerts.

``PassRateObserver`` rides on the audit's single pass and keeps one counter per
(run, claim, day, status), so its memory grows with runs x claims (x the few days a
run spans), never with rows. It reads a row's columns, not its body: the audit
reports any column that disagrees with the hashed body as an integrity problem.

A pass rate counts as the run report does (``ClaimTally.pass_rate``): passes over
the claim's checked results, errors included, since a result that could not be had
is not a pass; skipped rows (a gate that did not pass, judges off, a case the claim
did not apply to) were not checked and are left out, and a run or day where every
row of the claim was skipped has no rate for it. A claim is named by its contract
and id: two contracts may both have a claim ``tone``.

Degradation rule (``degradation_alerts``): a run alerts for a claim when its pass rate
is more than ``max(2 * sd, ZERO_VARIANCE_TOLERANCE)`` below the mean of the claim's
earlier runs in the window (``verifier.analyses.window``: the previous N runs, fewer
when the history is shorter, or the runs started within a span of time before it),
``sd`` being their sample standard deviation. At least ``MIN_PRIOR_RUNS`` earlier runs
are needed: two points give no usable spread; a run with fewer is not judged, and the
claim's last such run is named (``WindowShortfall``). When every earlier rate was equal
(``sd == 0``), any drop beyond the tolerance alerts: a claim that always passed and now
fails once has left its history, however small the drop. Only runs that checked the claim count.

An alert whose window (the earlier runs it was compared with, and its own run) spans a
judge succession of the claim (``verifier.analyses.crossings``) names it: it stays an
alert, and says that the judge changed there and what its trial found.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from verifier.analyses.audit import ObservedRows
from verifier.analyses.crossings import (
    SuccessionCrossing,
    SuccessionMark,
    succession_dict,
    succession_marks,
    succession_note,
)
from verifier.analyses.window import (
    DEFAULT_WINDOW,
    MIN_PRIOR_RUNS,
    Window,
    WindowShortfall,
    parse_window,
)
from verifier.gaps.store import RunRecord
from verifier.gaps.successions import SuccessionRow
from verifier.results import ClaimTally, row_not_applicable

_NOT_APPLICABLE = "not applicable"
"""The status a skipped row is counted under when its claim did not apply to the case."""

__all__ = [
    "DEFAULT_WINDOW",
    "MIN_PRIOR_RUNS",
    "ZERO_VARIANCE_TOLERANCE",
    "ClaimTrend",
    "DayRate",
    "DegradationAlert",
    "PassRateObserver",
    "PassRateTrends",
    "RunRate",
    "RunRef",
    "WindowShortfall",
    "degradation_alerts",
]

ZERO_VARIANCE_TOLERANCE = 1e-9
"""How far below an unvarying history a rate must fall to alert: float noise only."""

ClaimKey = tuple[str, str]
"""(contract_id, claim_id)."""


@dataclass(frozen=True, slots=True)
class RunRef:
    """A run in history order: when it started (its first row's time if it has no
    record), and the seq of its first row, which breaks ties."""

    run_id: str
    contract_id: str  # with "@VARIANT" for a run of one --variant: its own history
    started_at: str
    first_seq: int


def _rate_of(tally: ClaimTally) -> float:
    rate = tally.pass_rate
    if rate is None:
        # Trends are built of the runs and days that checked the claim.
        raise ValueError("a point of a trend needs a checked result")
    return rate


@dataclass(frozen=True, slots=True)
class RunRate:
    """One claim's results in one run (at least one of them checked)."""

    run_id: str
    started_at: str
    tally: ClaimTally

    @property
    def pass_rate(self) -> float:
        return _rate_of(self.tally)

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "started_at": self.started_at, **self.tally.as_dict()}


@dataclass(frozen=True, slots=True)
class DayRate:
    """One claim's results recorded on one UTC day (``YYYY-MM-DD``), over all runs (at
    least one of them checked)."""

    day: str
    tally: ClaimTally

    @property
    def pass_rate(self) -> float:
        return _rate_of(self.tally)

    def as_dict(self) -> dict[str, Any]:
        return {"day": self.day, **self.tally.as_dict()}


@dataclass(frozen=True, slots=True)
class ClaimTrend:
    """One claim's pass rate run by run (history order) and day by day."""

    contract_id: str
    claim_id: str
    runs: tuple[RunRate, ...]
    days: tuple[DayRate, ...]

    @property
    def name(self) -> str:
        return f"{self.contract_id}/{self.claim_id}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_id": self.contract_id,
            "claim_id": self.claim_id,
            "runs": [r.as_dict() for r in self.runs],
            "days": [d.as_dict() for d in self.days],
        }


@dataclass(frozen=True, slots=True)
class DegradationAlert:
    """A run whose pass rate for a claim fell below what its recent history allows."""

    contract_id: str
    claim_id: str
    run_id: str
    started_at: str
    pass_rate: float
    mean: float
    stdev: float
    threshold: float
    prior_runs: tuple[str, ...]
    successions: tuple[SuccessionRow, ...] = ()
    """The judge successions of the claim its window spans (see ``spanned``)."""
    window: Window = DEFAULT_WINDOW

    @property
    def name(self) -> str:
        return f"{self.contract_id}/{self.claim_id}"

    @property
    def deviations(self) -> float | None:
        """How many standard deviations below the mean the rate is (None when sd is 0)."""
        return (self.mean - self.pass_rate) / self.stdev if self.stdev else None

    def describe(self) -> str:
        """One line: the claim, the run, the rate, and the history it broke from."""
        runs = len(self.prior_runs)
        within = "" if self.window.kind == "runs" else f" (within {self.window.describe()})"
        if self.deviations is None:
            # No spread to count deviations in: the history is one rate, said as such.
            history = (
                f"below {self.mean:.3f}, the pass rate of each of the previous {runs} runs{within}"
            )
        else:
            history = (
                f"{self.deviations:.1f} sd below the mean {self.mean:.3f} ± {self.stdev:.3f} "
                f"of the previous {runs} runs{within}"
            )
        spans = "".join(f"; spans {succession_note(row)}" for row in self.successions)
        return (
            f"{self.name} at run {self.run_id} ({self.started_at}): pass rate "
            f"{self.pass_rate:.3f} is {history} (alert below {self.threshold:.3f}){spans}"
        )

    def spanned(self, crossings: Iterable[SuccessionCrossing]) -> DegradationAlert:
        """The alert naming the successions of its claim that its window spans: those
        whose first run under the new judge is among the runs after the first it was
        compared with, or is its own run."""
        window = {*self.prior_runs[1:], self.run_id}
        found: dict[str, SuccessionRow] = {}
        for crossing in crossings:
            if crossing.claim_id == self.claim_id and crossing.run_id in window:
                for row in crossing.successions:
                    found.setdefault(row.succession_id, row)
        return replace(self, successions=tuple(found.values())) if found else self

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_id": self.contract_id,
            "claim_id": self.claim_id,
            "run_id": self.run_id,
            "started_at": self.started_at,
            "pass_rate": round(self.pass_rate, 6),
            "mean": round(self.mean, 6),
            "stdev": round(self.stdev, 6),
            "threshold": round(self.threshold, 6),
            "deviations": None if self.deviations is None else round(self.deviations, 3),
            "prior_runs": list(self.prior_runs),
            "successions": [succession_dict(row) for row in self.successions],
        }


@dataclass(frozen=True, slots=True)
class PassRateTrends:
    """Every claim's trend, the runs in history order, and where claims cross judge
    successions (none unless the audit was given the store's lineage)."""

    claims: tuple[ClaimTrend, ...]
    runs: tuple[RunRef, ...]
    crossings: tuple[SuccessionCrossing, ...] = ()

    def alerts(self, window: Window | int | str = DEFAULT_WINDOW) -> list[DegradationAlert]:
        """Degradation alerts of every claim, in history order of their runs, each
        naming the judge successions its window spans."""
        window = parse_window(window)
        position = {ref.run_id: n for n, ref in enumerate(self.runs)}
        found = [
            alert.spanned(self.crossings)
            for trend in self.claims
            for alert in degradation_alerts(trend, window)
        ]
        return sorted(found, key=lambda a: (position[a.run_id], a.contract_id, a.claim_id))

    def shortfalls(
        self, window: Window | int | str = DEFAULT_WINDOW, run_id: str | None = None
    ) -> list[WindowShortfall]:
        """The claims whose last run (or run ``run_id``) had too few earlier runs in its
        time window to be judged: no alert could be computed for it. A window of runs
        has none: a history shorter than it is compared whole, and one of fewer than
        ``MIN_PRIOR_RUNS`` runs is young, not missing runs."""
        window = parse_window(window)
        if window.kind == "runs":
            return []
        found = []
        for trend in self.claims:
            ids = [r.run_id for r in trend.runs]
            n = len(ids) - 1 if run_id is None else (ids.index(run_id) if run_id in ids else -1)
            if n < 0:
                continue
            prior = n - window.start([r.started_at for r in trend.runs], n)
            if prior < MIN_PRIOR_RUNS:
                run = trend.runs[n]
                key = (trend.contract_id, trend.claim_id, run.run_id, run.started_at)
                found.append(WindowShortfall(*key, prior, window))
        return found

    @property
    def marks(self) -> tuple[SuccessionMark, ...]:
        """The judge successions on the run axis, in history order."""
        return succession_marks(self.crossings)

    @property
    def days(self) -> int:
        return len({d.day for trend in self.claims for d in trend.days})

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": [
                {"run_id": r.run_id, "contract_id": r.contract_id, "started_at": r.started_at}
                for r in self.runs
            ],
            "claims": [trend.as_dict() for trend in self.claims],
            "successions": [mark.as_dict() for mark in self.marks],
        }


def degradation_alerts(
    trend: ClaimTrend, window: Window | int | str = DEFAULT_WINDOW
) -> list[DegradationAlert]:
    """Runs of one claim whose pass rate drops out of the claim's recent history.

    See the module docstring for the rule.

    Args:
        trend: The claim's runs in history order.
        window: The earlier runs that form the history (``parse_window``): a count
            (at least ``MIN_PRIOR_RUNS``) or a span of time such as ``4w``.

    Raises:
        ValueError: ``window`` is not a window (``parse_window``).
    """
    window = parse_window(window)
    rates = [r.pass_rate for r in trend.runs]
    stamps = [r.started_at for r in trend.runs]
    alerts = []
    for n in range(MIN_PRIOR_RUNS, len(rates)):
        start = window.start(stamps, n)
        if n - start < MIN_PRIOR_RUNS:
            continue  # too few earlier runs in the span: not judged
        prior = rates[start:n]
        mean = statistics.fmean(prior)
        stdev = statistics.stdev(prior)
        threshold = mean - max(2 * stdev, ZERO_VARIANCE_TOLERANCE)
        if rates[n] < threshold:
            run = trend.runs[n]
            alerts.append(
                DegradationAlert(
                    trend.contract_id,
                    trend.claim_id,
                    run.run_id,
                    run.started_at,
                    rates[n],
                    mean,
                    stdev,
                    threshold,
                    tuple(r.run_id for r in trend.runs[start:n]),
                    window=window,
                )
            )
    return alerts


class PassRateObserver:
    """Counts results per (run, claim, UTC day, status) during the audit's pass."""

    def __init__(self) -> None:
        self._counts: defaultdict[tuple[str, str, str, str], int] = defaultdict(int)
        # run_id -> (seq, recorded_at, contract_id) of its first row
        self._first: dict[str, tuple[int, str, str]] = {}
        self._current_run = ""

    def observe(self, rows: ObservedRows) -> None:
        """Counts rows (see ``RowObserver``)."""
        counts, first, current = self._counts, self._first, self._current_run
        for row, body in rows:
            run_id = row.run_id
            if run_id != current:
                current = run_id
                if run_id not in first:
                    contract = body.get("contract_id") if body is not None else None
                    first[run_id] = (
                        row.seq,
                        row.recorded_at,
                        contract if type(contract) is str else "?",
                    )
            status = row.status
            if status == "skipped" and row_not_applicable(body):
                status = _NOT_APPLICABLE
            counts[run_id, row.claim_id, row.recorded_at[:10], status] += 1
        self._current_run = current

    def trends(self, records: Iterable[RunRecord]) -> PassRateTrends:
        """The trends of what was observed, runs ordered by their records' start time.

        Args:
            records: The store's runs; a run seen without a record is placed by its
                first row's time and named by that row's contract.
        """
        by_id = {r.run_id: r for r in records}
        order = _order_runs(self._first, by_id)
        position = {ref.run_id: n for n, ref in enumerate(order)}
        contract_of = {ref.run_id: ref.contract_id for ref in order}
        by_run: dict[ClaimKey, dict[str, ClaimTally]] = {}
        by_day: dict[ClaimKey, dict[str, ClaimTally]] = {}
        for (run_id, claim_id, day, status), count in self._counts.items():
            key = (contract_of[run_id], claim_id)
            _add(by_run.setdefault(key, {}).setdefault(run_id, ClaimTally()), status, count)
            _add(by_day.setdefault(key, {}).setdefault(day, ClaimTally()), status, count)
        claims = []
        for key in sorted(by_run):
            # A run (a day) whose every row of the claim was skipped has no rate for it
            # (judges off, every case gated out), rather than a rate of 0 that would alert.
            checked = {r: t for r, t in by_run[key].items() if t.checked}
            days_checked = {d: t for d, t in by_day[key].items() if t.checked}
            if not checked:
                continue  # no run checked the claim: no rate to follow
            runs = sorted(checked.items(), key=lambda item: position[item[0]])
            claims.append(
                ClaimTrend(
                    *key,
                    runs=tuple(RunRate(r, order[position[r]].started_at, t) for r, t in runs),
                    days=tuple(DayRate(d, t) for d, t in sorted(days_checked.items())),
                )
            )
        return PassRateTrends(tuple(claims), tuple(order))


def _add(tally: ClaimTally, status: str, count: int) -> None:
    # Statuses outside the four are schema problems the audit reports; they count as
    # results that are not passes, like skips.
    if status == "pass":
        tally.passed += count
    elif status == "fail":
        tally.failed += count
    elif status == "error":
        tally.errors += count
    else:
        tally.skipped += count
        if status == _NOT_APPLICABLE:
            tally.not_applicable += count


def _order_runs(
    first: dict[str, tuple[int, str, str]], records: dict[str, RunRecord]
) -> list[RunRef]:
    refs = []
    for run_id, (seq, recorded_at, contract) in first.items():
        record = records.get(run_id)
        if record is not None:
            series = record.contract_id
            variant = record.options.get("variant")
            if isinstance(variant, str) and variant:
                # Two systems checked against one contract (--variant) are two
                # histories: interleaved, the worse would read as a degradation.
                series = f"{series}@{variant}"
            refs.append(RunRef(run_id, series, record.started_at, seq))
        else:
            refs.append(RunRef(run_id, contract, recorded_at, seq))
    return sorted(refs, key=lambda ref: (_instant(ref.started_at), ref.first_seq))


def _instant(stamp: str) -> tuple[int, datetime | str]:
    # Parsed, so 10:00:00.5Z sorts after 10:00:00Z; an unreadable time sorts last.
    try:
        parsed = datetime.fromisoformat(stamp)
    except ValueError:
        return (1, stamp)
    return (0, parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC))
