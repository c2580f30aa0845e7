"""Wilcoxon's signed-rank test on exact score differences, with its exact null law.

Scores are stored as floats, so two differences equal on paper (``0.3 - 0.1`` and
``0.7 - 0.5``) differ in their last bits; ranked as floats they would not tie, and the
test would answer a question about rounding. Each score is therefore read back as the
rational it stands for (``exact_score``: the fraction nearest the float among those
with a denominator up to ``SCORE_DENOMINATOR``, when it is that near), and differences
are taken between those fractions. Writers store every score at full float precision
(ADR 0062): a float is within a few units in the last place of the ratio it was
computed as, and two fractions with denominators up to 10**6 lie at least 10**-12
apart, so a judge scale's grid, tenths, thirds, sevenths or a similarity ratio of texts
up to a million characters all read back exactly. A score that an older version
stored rounded to six decimals reads back as that decimal.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final, Literal

from verifier.compare.score_differences import difference_counts

__all__ = [
    "EXACT_MAX_PAIRS",
    "SCORE_DENOMINATOR",
    "SCORE_TOLERANCE",
    "SignedRankResult",
    "exact_score",
    "rank_groups",
    "score_difference",
    "signed_ranks",
    "wilcoxon_signed_rank",
]

EXACT_MAX_PAIRS: Final = 50
"""Largest number of nonzero differences whose p-value is exact; above it, normal."""

SCORE_DENOMINATOR: Final = 10**6
"""Largest denominator a stored score is read with. Matched to the writer, which stores
full float precision: fractions of denominators up to ``N`` are at least ``1/N**2``
apart (10**-12 here), far more than a float's error of about 10**-16, so the nearest
such fraction is the one the score was computed as."""

SCORE_TOLERANCE: Final = Fraction(1, 10**13)
"""How far that fraction may be from the stored float for the float to be read as it:
above a float's error for any score up to a thousand, below half the gap between two
such fractions. A float farther from every one is no ratio of small integers (a mean of
many similarities) and is read as the exact value it holds."""


@lru_cache(maxsize=4096)
def exact_score(score: float) -> Fraction:
    """The rational a stored score stands for.

    The nearest fraction with a denominator up to ``SCORE_DENOMINATOR`` when it lies
    within ``SCORE_TOLERANCE``: ``0.30000000000000004`` is 3/10, ``0.6666666666666666``
    2/3, and a six-decimal ``0.333333`` of an older row is 333333/1000000. Any other
    score is the float's own value, never moved.

    Raises:
        ValueError: The score is not finite.
    """
    if not math.isfinite(score):
        raise ValueError(f"a score must be finite, not {score}")
    value = Fraction(score)
    near = value.limit_denominator(SCORE_DENOMINATOR)
    return near if abs(near - value) <= SCORE_TOLERANCE else value


@lru_cache(maxsize=4096)
def score_difference(candidate: float, baseline: float) -> Fraction:
    """``candidate - baseline`` between the fractions the two stored scores stand for.

    Cached, so the many pairs of a run on one score grid share a few objects.
    """
    return exact_score(candidate) - exact_score(baseline)


def rank_groups(counts: Mapping[Fraction, int]) -> tuple[list[tuple[int, int]], int]:
    """The tie groups of the nonzero ``|differences|``, smallest first, from how often
    each difference occurs: each group's doubled average rank and size, and the doubled
    sum of the ranks of the positive differences.

    Doubling makes every average rank an integer: a tie over ranks ``i..j`` has the
    doubled rank ``i + j``.
    """
    sizes: dict[Fraction, list[int]] = {}  # |difference| -> [pairs, positive pairs]
    for difference, n in counts.items():
        if difference != 0 and n:
            group = sizes.setdefault(abs(difference), [0, 0])
            group[0] += n
            group[1] += n if difference > 0 else 0
    groups: list[tuple[int, int]] = []
    positive = start = 0
    for _, (size, positives) in sorted(sizes.items()):
        doubled = (start + 1) + (start + size)
        groups.append((doubled, size))
        positive += doubled * positives
        start += size
    return groups, positive


def signed_ranks(differences: Sequence[Fraction | int]) -> tuple[list[int], int]:
    """Doubled average ranks of the nonzero ``|differences|``, and the doubled positive sum
    (``rank_groups``, a rank per difference).

    Returns:
        ``(doubled ranks, doubled sum of the ranks of positive differences)``.
    """
    groups, positive = rank_groups(difference_counts(differences))
    return [doubled for doubled, size in groups for _ in range(size)], positive


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


def _normal_two_sided(groups: Sequence[tuple[int, int]], positive: int) -> float:
    """Normal approximation with tie-corrected variance and a continuity correction of 1/2."""
    n = sum(size for _, size in groups)
    mean = n * (n + 1) / 4
    # The tie-corrected variance is the sum of the squared ranks over 4, which for
    # average ranks equals n(n+1)(2n+1)/24 - sum(t^3 - t)/48.
    variance = sum(doubled * doubled * size for doubled, size in groups) / 16
    distance = max(0.0, abs(positive / 2 - mean) - 0.5)
    # 2 * Phi(-z) is erfc(z / sqrt 2); erfc keeps its digits far in the tail, where
    # 2 * cdf(-z) loses them (a p of 1e-20 would print as 0.0).
    return min(1.0, math.erfc(distance / math.sqrt(variance) / math.sqrt(2.0)))


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


def _median(counts: Mapping[Fraction, int]) -> Fraction:
    """The median of the differences ``counts`` counts (each as often as counted)."""
    total = sum(counts.values())
    wanted = (total - 1) // 2, total // 2  # the middle one, or the middle two
    found: list[Fraction] = []
    seen = 0
    for value, n in sorted(counts.items()):
        found.extend(value for index in wanted if seen <= index < seen + n)
        seen += n
    return found[0] if total % 2 else (found[0] + found[1]) / 2


def wilcoxon_signed_rank(differences: Sequence[Fraction | int]) -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test (Wilcoxon 1945) on exact paired differences.

    Args:
        differences: Candidate minus baseline, as fractions (``exact_score`` turns
            stored scores into them) or integers; a ``ScoreDifferences`` is read by
            its counts, without a rank per pair.

    Returns:
        The test; see the module docstring for the handling of zeros and ties and for
        when the p-value is exact.
    """
    counts = difference_counts(differences)
    median = float(_median(counts)) if counts else 0.0
    groups, positive = rank_groups(counts)
    nonzero = sum(size for _, size in groups)
    if not nonzero:
        return SignedRankResult(0.0, 1.0, 0, median, "none")
    negative = sum(doubled * size for doubled, size in groups) - positive
    statistic = min(positive, negative) / 2
    if nonzero <= EXACT_MAX_PAIRS:
        ranks = [doubled for doubled, size in groups for _ in range(size)]
        return SignedRankResult(
            statistic, _exact_two_sided(ranks, positive), nonzero, median, "exact"
        )
    return SignedRankResult(
        statistic, _normal_two_sided(groups, positive), nonzero, median, "normal"
    )
