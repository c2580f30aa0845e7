"""Agreement statistics between a judge and human labels: pure functions, no I/O.

A judge is only as good as its agreement with the people whose judgement it stands in
for. These functions measure that agreement on pass/fail verdicts (percent agreement,
Cohen's kappa with its Landis & Koch band, the 2x2 confusion matrix), on scores
(Spearman and Pearson correlations, from scipy) and among several human raters
(Krippendorff's alpha, from the ``krippendorff`` package). scipy and krippendorff are
imported only when a correlation or an alpha is asked for; they are the ``stats`` extra,
and without it asking for one raises ``MissingExtraError``.

A statistic that is undefined for the data (a kappa when both sides used one verdict
only, a correlation of a constant vector) is ``None``, never a made-up number.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from verifier._internal.extras import needs_extra

__all__ = [
    "Confusion",
    "Correlation",
    "KappaBand",
    "cohens_kappa",
    "confusion_of",
    "krippendorff_alpha",
    "landis_koch_band",
    "pearson",
    "percent_agreement",
    "spearman",
]

KappaBand = Literal["poor", "slight", "fair", "moderate", "substantial", "almost perfect"]

# Landis & Koch (1977), "The measurement of observer agreement for categorical data",
# Biometrics 33(1): 159-174, Table on p. 165: upper bound of each band.
_BANDS: tuple[tuple[float, KappaBand], ...] = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
)


@dataclass(frozen=True, slots=True)
class Confusion:
    """A 2x2 table of human label against judge verdict, counted over labelled items.

    Attributes:
        both_pass: The human said pass and so did the judge.
        human_pass_judge_fail: The human said pass, the judge fail.
        human_fail_judge_pass: The human said fail, the judge pass.
        both_fail: The human said fail and so did the judge.
    """

    both_pass: int = 0
    human_pass_judge_fail: int = 0
    human_fail_judge_pass: int = 0
    both_fail: int = 0

    @property
    def n(self) -> int:
        """Number of labelled items in the table."""
        return (
            self.both_pass
            + self.human_pass_judge_fail
            + self.human_fail_judge_pass
            + self.both_fail
        )

    @property
    def agreed(self) -> int:
        """Items on which human and judge gave the same verdict."""
        return self.both_pass + self.both_fail

    def rows(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The table as ``((pass/pass, pass/fail), (fail/pass, fail/fail))``, human by row."""
        return (
            (self.both_pass, self.human_pass_judge_fail),
            (self.human_fail_judge_pass, self.both_fail),
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "human_pass_judge_pass": self.both_pass,
            "human_pass_judge_fail": self.human_pass_judge_fail,
            "human_fail_judge_pass": self.human_fail_judge_pass,
            "human_fail_judge_fail": self.both_fail,
        }


def confusion_of(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """Counts ``(human_passed, judge_passed)`` pairs into a 2x2 table."""
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for human, judge in pairs:
        counts[(bool(human), bool(judge))] += 1
    return Confusion(
        counts[(True, True)], counts[(True, False)], counts[(False, True)], counts[(False, False)]
    )


def percent_agreement(table: Confusion) -> float | None:
    """Share of items (0 to 1) where human and judge agree; ``None`` for an empty table."""
    return table.agreed / table.n if table.n else None


def cohens_kappa(table: Confusion) -> float | None:
    """Cohen's kappa of a 2x2 table: agreement beyond what chance alone would give.

    ``kappa = (p_o - p_e) / (1 - p_e)``, where ``p_o`` is the observed share of
    agreement and ``p_e`` the agreement expected from each side's marginal shares
    (Cohen 1960, "A coefficient of agreement for nominal scales").

    Returns:
        Kappa in [-1, 1], or ``None`` when it is undefined: no items, or both sides
        used a single and the same verdict throughout (``p_e = 1``).
    """
    n = table.n
    if n == 0:
        return None
    human_pass = (table.both_pass + table.human_pass_judge_fail) / n
    judge_pass = (table.both_pass + table.human_fail_judge_pass) / n
    p_o = table.agreed / n
    p_e = human_pass * judge_pass + (1 - human_pass) * (1 - judge_pass)
    if math.isclose(p_e, 1.0):
        return None
    return (p_o - p_e) / (1 - p_e)


def landis_koch_band(kappa: float) -> KappaBand:
    """The Landis & Koch (1977) name of a kappa's strength of agreement.

    Below 0 is ``poor``; up to 0.20 ``slight``; 0.21-0.40 ``fair``; 0.41-0.60
    ``moderate``; 0.61-0.80 ``substantial``; above 0.80 ``almost perfect``.
    """
    if kappa < 0:
        return "poor"
    for upper, band in _BANDS:
        if kappa <= upper:
            return band
    return "almost perfect"


@dataclass(frozen=True, slots=True)
class Correlation:
    """A correlation coefficient with its two-sided p-value and sample size."""

    r: float
    p_value: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        return {"r": self.r, "p_value": self.p_value, "n": self.n}


def _usable(x: Sequence[float], y: Sequence[float]) -> bool:
    if len(x) != len(y):
        raise ValueError(f"vectors differ in length ({len(x)} and {len(y)})")
    # Fewer than three points always give r = +-1; a constant vector has no correlation.
    return len(x) >= 3 and len(set(x)) > 1 and len(set(y)) > 1


def pearson(x: Sequence[float], y: Sequence[float]) -> Correlation | None:
    """Pearson's linear correlation of paired scores (``scipy.stats.pearsonr``).

    Returns:
        The correlation, or ``None`` with fewer than three pairs or a constant side.

    Raises:
        ValueError: The vectors differ in length.
        MissingExtraError: The ``stats`` extra (scipy) is not installed.
    """
    if not _usable(x, y):
        return None
    with needs_extra("stats", "Pearson's correlation"):
        from scipy import stats

    result = stats.pearsonr(list(x), list(y))
    return Correlation(float(result.statistic), float(result.pvalue), len(x))


def spearman(x: Sequence[float], y: Sequence[float]) -> Correlation | None:
    """Spearman's rank correlation of paired scores, ties given mean ranks.

    Returns:
        The correlation, or ``None`` with fewer than three pairs or a constant side.

    Raises:
        ValueError: The vectors differ in length.
        MissingExtraError: The ``stats`` extra (scipy) is not installed.
    """
    if not _usable(x, y):
        return None
    with needs_extra("stats", "Spearman's correlation"):
        from scipy import stats

    result = stats.spearmanr(list(x), list(y))
    return Correlation(float(result.statistic), float(result.pvalue), len(x))


def krippendorff_alpha(
    reliability: Sequence[Sequence[float | None]],
    level: Literal["nominal", "interval"],
) -> float | None:
    """Krippendorff's alpha of a raters-by-units table (Krippendorff 2011).

    Args:
        reliability: One row per rater, one column per unit; ``None`` where a rater
            did not label that unit. Pass/fail values are coded 1 and 0.
        level: ``nominal`` for pass/fail labels, ``interval`` for scores.

    Returns:
        Alpha (1 is perfect agreement, 0 what chance gives), or ``None`` when it is
        undefined: fewer than two raters, no unit labelled by two of them, or a
        single value used throughout.

    Raises:
        MissingExtraError: The ``stats`` extra (krippendorff, numpy) is not installed.
    """
    if len(reliability) < 2:
        return None
    width = {len(row) for row in reliability}
    if len(width) != 1:
        raise ValueError("every rater's row must cover the same units")
    columns = list(zip(*reliability, strict=True))
    pairable = [[v for v in column if v is not None] for column in columns]
    values = {v for column in pairable if len(column) >= 2 for v in column}
    if len(values) < 2:
        return None
    with needs_extra("stats", "Krippendorff's alpha"):
        import krippendorff
        import numpy as np

    data = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in reliability], dtype=float
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    return None if math.isnan(alpha) else alpha
