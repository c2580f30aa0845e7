"""Wilcoxon's signed-rank test on exact score differences, with its exact null law.

Scores are stored as floats, so two differences equal on paper (``0.3 - 0.1`` and
``0.7 - 0.5``) differ in their last bits; ranked as floats they would not tie, and the
test would answer a question about rounding. Each score is therefore read back as the
rational it stands for (``exact_score``: the simplest fraction within ``SCORE_TOLERANCE``
of the float, which recovers a judge scale's grid, tenths, or a similarity ratio of
small integers), and differences are taken between those fractions.

The test itself is computed here, not delegated, so its result does not depend on the
installed scipy (whose defaults for ties, zeros and the exact/normal switch changed
between releases):

- zero differences are dropped before ranking (Wilcoxon 1945; R's ``wilcox.test`` and
  scipy's ``zero_method="wilcox"``);
- tied absolute differences get the average of their ranks;
- with at most ``EXACT_MAX_PAIRS`` nonzero differences the p-value comes from the
  exact permutation distribution: all ``2**n`` sign assignments of the observed
  (tied) ranks, counted by a dynamic programme over doubled ranks, which are integers;
- above it, the normal approximation with the tie-corrected variance
  ``n(n+1)(2n+1)/24 - sum(t**3 - t)/48`` and a continuity correction of 1/2
  (Lehmann 1975, *Nonparametrics*, ch. 3; as R's ``wilcox.test(correct = TRUE)``).

The two-sided p-value is the probability, under the null, of a positive rank sum at
least as far from its mean ``n(n+1)/4`` as the one observed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist
from typing import Final, Literal

__all__ = [
    "EXACT_MAX_PAIRS",
    "SCORE_TOLERANCE",
    "SignedRankResult",
    "exact_score",
    "score_difference",
    "signed_ranks",
    "wilcoxon_signed_rank",
]

EXACT_MAX_PAIRS: Final = 50
"""Largest number of nonzero differences whose p-value is exact; above it, normal."""

SCORE_TOLERANCE: Final = Fraction(1, 10**9)
"""How far a stored score may be from the fraction it is read as (far above float
noise, far below any step of a score scale)."""


def _simplest_between(low: Fraction, high: Fraction) -> Fraction:
    """The fraction with the smallest denominator in ``[low, high]`` (``0 < low <= high``).

    The continued-fraction walk of the Stern-Brocot tree: take the integer part while
    both ends share it, and recurse on the reciprocals of what is left.
    """
    whole = math.ceil(low)
    if whole <= high:
        return Fraction(whole)
    floor = whole - 1
    return floor + 1 / _simplest_between(1 / (high - floor), 1 / (low - floor))


@lru_cache(maxsize=4096)
def exact_score(score: float) -> Fraction:
    """The rational a stored score stands for.

    The simplest fraction (smallest denominator) within ``SCORE_TOLERANCE`` of
    ``score``: ``0.30000000000000004`` is 3/10, ``0.6666666666666666`` is 2/3.

    Raises:
        ValueError: The score is not finite.
    """
    if not math.isfinite(score):
        raise ValueError(f"a score must be finite, not {score}")
    value = Fraction(score)
    low, high = value - SCORE_TOLERANCE, value + SCORE_TOLERANCE
    if low <= 0 <= high:
        return Fraction(0)
    if value < 0:
        return -_simplest_between(-high, -low)
    return _simplest_between(low, high)


@lru_cache(maxsize=4096)
def score_difference(candidate: float, baseline: float) -> Fraction:
    """``candidate - baseline`` between the fractions the two stored scores stand for.

    Cached, so the many pairs of a run on one score grid share a few objects.
    """
    return exact_score(candidate) - exact_score(baseline)


def signed_ranks(differences: Sequence[Fraction]) -> tuple[list[int], int]:
    """Doubled average ranks of the nonzero ``|differences|``, and the doubled positive sum.

    Doubling makes every average rank an integer: a tie over ranks ``i..j`` has the
    doubled rank ``i + j``.

    Returns:
        ``(doubled ranks, doubled sum of the ranks of positive differences)``.
    """
    nonzero = sorted((abs(d), d > 0) for d in differences if d != 0)
    ranks: list[int] = []
    positive = 0
    start = 0
    while start < len(nonzero):
        end = start
        while end + 1 < len(nonzero) and nonzero[end + 1][0] == nonzero[start][0]:
            end += 1
        doubled = (start + 1) + (end + 1)
        for index in range(start, end + 1):
            ranks.append(doubled)
            positive += doubled if nonzero[index][1] else 0
        start = end + 1
    return ranks, positive


def _exact_two_sided(ranks: Sequence[int], positive: int) -> float:
    """P(|W - mean| >= |w - mean|) over the ``2**n`` equally likely sign assignments.

    ``counts[s]`` is the number of assignments whose doubled positive rank sum is ``s``;
    adding one rank ``r`` either leaves a sum alone (negative sign) or adds ``r``.
    """
    total = sum(ranks)
    counts = [1] + [0] * total
    reached = 0
    for rank in ranks:
        reached += rank
        for s in range(reached, rank - 1, -1):
            counts[s] += counts[s - rank]
    # In doubled units the mean is total / 2, so compare 2s - total with 2w - total.
    distance = abs(2 * positive - total)
    extreme = sum(c for s, c in enumerate(counts) if abs(2 * s - total) >= distance)
    return float(Fraction(extreme, 2 ** len(ranks)))


def _normal_two_sided(ranks: Sequence[int], positive: int) -> float:
    """Normal approximation with tie-corrected variance and a continuity correction of 1/2."""
    n = len(ranks)
    mean = n * (n + 1) / 4
    # The tie-corrected variance is the sum of the squared ranks over 4, which for
    # average ranks equals n(n+1)(2n+1)/24 - sum(t^3 - t)/48.
    variance = sum(r * r for r in ranks) / 16
    distance = max(0.0, abs(positive / 2 - mean) - 0.5)
    return min(1.0, 2.0 * NormalDist().cdf(-distance / math.sqrt(variance)))


@dataclass(frozen=True, slots=True)
class SignedRankResult:
    """Wilcoxon's signed-rank test of paired score differences.

    Attributes:
        statistic: The smaller of the positive and negative rank sums (0 without data).
        p_value: Two-sided p-value; 1 when every difference is zero.
        nonzero: Differences that were not zero (zeros are dropped before ranking).
        median_difference: Median of all differences, zeros included (0 without data).
        method: ``exact`` (permutation distribution), ``normal`` (approximation above
            ``EXACT_MAX_PAIRS``) or ``none`` (no nonzero difference: nothing to test).
    """

    statistic: float
    p_value: float
    nonzero: int
    median_difference: float
    method: Literal["exact", "normal", "none"]


def _median(values: Sequence[Fraction]) -> Fraction:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def wilcoxon_signed_rank(differences: Sequence[Fraction | int]) -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test (Wilcoxon 1945) on exact paired differences.

    Args:
        differences: Candidate minus baseline, as fractions (``exact_score`` turns
            stored scores into them) or integers.

    Returns:
        The test; see the module docstring for the handling of zeros and ties and for
        when the p-value is exact.
    """
    exact = [Fraction(d) for d in differences]
    median = float(_median(exact)) if exact else 0.0
    ranks, positive = signed_ranks(exact)
    if not ranks:
        return SignedRankResult(0.0, 1.0, 0, median, "none")
    negative = sum(ranks) - positive
    statistic = min(positive, negative) / 2
    if len(ranks) <= EXACT_MAX_PAIRS:
        return SignedRankResult(
            statistic, _exact_two_sided(ranks, positive), len(ranks), median, "exact"
        )
    return SignedRankResult(
        statistic, _normal_two_sided(ranks, positive), len(ranks), median, "normal"
    )
