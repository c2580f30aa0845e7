"""A case's overall score on its scale claims' own scale, and the run's mean of it.

A contract with ``overall: {mean_of: scale}`` scores each case twice: its pass share
(the weighted share of claims passed, which decides pass or fail as it always did)
and its overall, the weighted mean of its scale claims' scores on their own scale
(a 1-5 Likert scale gives an overall between 1 and 5). A case whose overall lies
below ``revise_below`` is flagged ``revise``. Every surface asks this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["CaseOverall", "OverallRule", "OverallTally", "overall_text"]


class _Scored(Protocol):
    """A claim's result, as ``verifier.results.ClaimResult`` holds it."""

    @property
    def claim_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def score(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class CaseOverall:
    """One case's overall.

    Attributes:
        value: The weighted mean of the scale claims that gave a score, on their scale;
            ``None`` when none did (errors and skips are left out, never counted as 0).
        scored: How many scale claims gave a score.
        revise: The value lies below the contract's ``revise_below``.
    """

    value: float | None
    scored: int
    revise: bool

    def text(self) -> str:
        """``4.8``, ``4.8 (revise)`` or ``—`` (no scale claim scored), as reports show it."""
        if self.value is None:
            return "—"
        return f"{self.value:.2f}" + (" (revise)" if self.revise else "")

    def as_dict(self) -> dict[str, Any]:
        """The case's overall as the JSON report keeps it."""
        value = None if self.value is None else round(self.value, 6)
        return {"value": value, "scored": self.scored, "revise": self.revise}


@dataclass(frozen=True, slots=True)
class OverallRule:
    """A contract's ``overall:`` as a run applies it.

    Attributes:
        weights: Each scale claim's weight, by claim id.
        low: The scale's lowest score (a stored score of 0 is this).
        high: The scale's highest score (a stored score of 1 is this).
        revise_below: An overall below this flags its case ``revise`` (``None``: never).
    """

    weights: Mapping[str, float]
    low: int
    high: int
    revise_below: float | None = None

    def of(self, results: Iterable[_Scored]) -> CaseOverall:
        """The overall of one case's results: its scale claims that passed or failed,
        their stored score (0-1) put back on the scale, weighted by the claims' weight."""
        total = weighted = 0.0
        scored = 0
        for result in results:
            weight = self.weights.get(result.claim_id)
            if weight is None or result.status not in ("pass", "fail") or result.score is None:
                continue
            total += weight
            weighted += weight * (self.low + result.score * (self.high - self.low))
            scored += 1
        if not scored:
            return CaseOverall(None, 0, False)
        # Round away float noise, so 3.0 made of 2.9999999 compares as 3.0.
        value = round(weighted / total, 9)
        below = self.revise_below
        return CaseOverall(value, scored, below is not None and value < below)


@dataclass(slots=True)
class OverallTally:
    """The run's overall: the mean over the cases that have one, and the revise count."""

    rule: OverallRule
    cases: int = 0
    total: float = 0.0
    revise: int = 0
    without: int = 0
    revise_ids: list[str] = field(default_factory=list)

    REVISE_IDS_KEPT = 20
    """How many ids of cases to revise a summary keeps (the count is exact)."""

    def add(self, case_id: str, overall: CaseOverall) -> None:
        """Counts one case's overall."""
        if overall.value is None:
            self.without += 1
            return
        self.cases += 1
        self.total += overall.value
        if overall.revise:
            self.revise += 1
            if len(self.revise_ids) < self.REVISE_IDS_KEPT:
                self.revise_ids.append(case_id)

    @property
    def mean(self) -> float | None:
        """The mean overall of the cases that have one (``None``: no case has one)."""
        return self.total / self.cases if self.cases else None

    def text(self) -> str:
        """The run's overall in a line (``overall_text``)."""
        return overall_text(self.as_dict()) or ""

    def as_dict(self) -> dict[str, Any]:
        """The run's overall as the JSON report and the run record keep it."""
        mean = self.mean
        return {
            "mean": None if mean is None else round(mean, 6),
            "scale": [self.rule.low, self.rule.high],
            "cases": self.cases,
            "without_overall": self.without,
            "revise_below": self.rule.revise_below,
            "revise": self.revise,
            "revise_cases": list(self.revise_ids),
        }


def overall_text(record: Any) -> str | None:
    """A run's overall (``OverallTally.as_dict``, as reports and the run record keep it)
    in a line: ``mean overall 3.40 on 1-5 (4 cases; 1 to revise, below 3: tcr-002)``;
    ``None`` when ``record`` is not one (a run whose contract asks for no overall)."""
    if not isinstance(record, Mapping) or not isinstance(record.get("scale"), list):
        return None
    mean, cases = record.get("mean"), record.get("cases")
    shown = f"{mean:.2f}" if isinstance(mean, int | float) else "—"
    parts = [f"{cases} case{'' if cases == 1 else 's'}"]
    if record.get("without_overall"):
        parts.append(f"{record['without_overall']} without a scale score")
    below = record.get("revise_below")
    if isinstance(below, int | float):
        ids = record.get("revise_cases") or []
        named = f": {', '.join(map(str, ids))}" if ids else ""
        more = record.get("revise", 0) - len(ids)
        named += f" and {more} more" if ids and more > 0 else ""
        parts.append(f"{record.get('revise', 0)} to revise, below {below:g}{named}")
    low, high = record["scale"][:2] if len(record["scale"]) >= 2 else ("?", "?")
    return f"mean overall {shown} on {low}-{high} ({'; '.join(parts)})"
