"""Paired statistics for comparing two runs of one contract on the same cases.

Every function is pure and names the published method it implements, so a reader can
check a figure by hand. They need only the standard library (``statistics.NormalDist``
gives the normal quantiles; the exact test counts in integers), so no figure depends on
the installed scipy. Wilcoxon's signed-rank test is in ``signed_rank``, the exact
power and sample size in ``power``.

Orientation: run A is the baseline and run B the candidate. A paired outcome is one
case checked by both runs; ``PairedTable`` counts them in the four cells of the
paired 2x2 table, and every difference is *candidate minus baseline*, so a negative
difference means the candidate passes less often.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

__all__ = [
    "PairedTable",
    "holm_adjust",
    "mcnemar_exact_p",
    "newcombe_paired_interval",
    "wilson_interval",
]


@dataclass(frozen=True, slots=True)
class PairedTable:
    """The paired 2x2 table of one claim (or of whole cases) over two runs.

    Attributes:
        both_pass: Pairs that passed in both runs.
        baseline_only: Pairs that passed in the baseline only (regressions).
        candidate_only: Pairs that passed in the candidate only (improvements).
        both_fail: Pairs that failed in both runs.
    """

    both_pass: int = 0
    baseline_only: int = 0
    candidate_only: int = 0
    both_fail: int = 0

    @property
    def pairs(self) -> int:
        """Paired outcomes in the table."""
        return self.both_pass + self.baseline_only + self.candidate_only + self.both_fail

    @property
    def baseline_passed(self) -> int:
        return self.both_pass + self.baseline_only

    @property
    def candidate_passed(self) -> int:
        return self.both_pass + self.candidate_only

    @property
    def baseline_rate(self) -> float | None:
        """The baseline's pass rate over the pairs (``None`` when there are none)."""
        return self.baseline_passed / self.pairs if self.pairs else None

    @property
    def candidate_rate(self) -> float | None:
        """The candidate's pass rate over the pairs (``None`` when there are none)."""
        return self.candidate_passed / self.pairs if self.pairs else None

    @property
    def difference(self) -> float:
        """Candidate minus baseline pass rate: ``(candidate_only - baseline_only) / pairs``."""
        return (self.candidate_only - self.baseline_only) / self.pairs if self.pairs else 0.0


def _z(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (1.959964 for 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for one binomial proportion (Wilson 1927).

    Args:
        successes: Successes observed, ``0 <= successes <= n``.
        n: Trials; with none the interval is the whole of ``[0, 1]``.
        confidence: Two-sided confidence level.

    Returns:
        The lower and upper limits, inside ``[0, 1]``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n ({n}), not {successes}")
    if n == 0:
        return 0.0, 1.0
    z = _z(confidence)
    p = successes / n
    z2 = z * z
    centre = (2 * n * p + z2) / (2 * (n + z2))
    half = z * math.sqrt(z2 + 4 * n * p * (1 - p)) / (2 * (n + z2))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_paired_interval(
    table: PairedTable, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Confidence interval for the paired difference, candidate minus baseline.

    Newcombe's square-and-add interval for paired proportions, method 10 of Newcombe
    (1998), "Improved confidence intervals for the difference between binomial
    proportions based on paired data", Statistics in Medicine 17:2635-2650: the Wilson
    intervals of the two marginal rates combined with the estimated correlation
    between them, whose numerator ``ad - bc`` is shrunk towards zero by ``n / 2`` when
    positive (the continuity-corrected form, as in Fagerland, Lydersen and Laake, 2017,
    *Statistical Analysis of Contingency Tables*, chapter 8). Unlike the Wald interval
    it never leaves ``[-1, 1]`` and does not collapse to a point when no pair is
    discordant.

    Returns:
        ``(lower, upper)``; ``(-1.0, 1.0)`` when the table is empty.
    """
    n = table.pairs
    if n == 0:
        return -1.0, 1.0
    # Rows of Newcombe's table are the candidate, columns the baseline, so his
    # p1 - p2 is candidate minus baseline.
    n11, n12 = table.both_pass, table.candidate_only
    n21, n22 = table.baseline_only, table.both_fail
    row_pass, row_fail = n11 + n12, n21 + n22
    col_pass, col_fail = n11 + n21, n12 + n22
    p1, p2 = row_pass / n, col_pass / n
    l1, u1 = wilson_interval(row_pass, n, confidence=confidence)
    l2, u2 = wilson_interval(col_pass, n, confidence=confidence)
    phi = 0.0
    if row_pass and row_fail and col_pass and col_fail:
        cross = n11 * n22 - n12 * n21
        denominator = math.sqrt(row_pass * row_fail * col_pass * col_fail)
        if cross > n / 2:
            phi = (cross - n / 2) / denominator
        elif cross < 0:
            phi = cross / denominator
    estimate = p1 - p2
    below = math.sqrt(max(0.0, (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)))
    above = math.sqrt(max(0.0, (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)))
    return max(-1.0, estimate - below), min(1.0, estimate + above)


def mcnemar_exact_p(baseline_only: int, candidate_only: int) -> float:
    """Two-sided exact McNemar test: a binomial test of the discordant pairs.

    Under no difference each discordant pair is as likely to favour either run, so
    ``baseline_only`` is Binomial(``baseline_only + candidate_only``, 1/2) (McNemar
    1947; the exact conditional form). With no discordant pair there is no evidence
    either way and the p-value is 1.
    """
    if baseline_only < 0 or candidate_only < 0:
        raise ValueError("discordant counts cannot be negative")
    discordant = baseline_only + candidate_only
    if discordant == 0:
        return 1.0
    # Binomial(d, 1/2) is symmetric, so the two tails beyond the observed split are
    # twice the smaller one, counted exactly.
    tail = sum(math.comb(discordant, k) for k in range(min(baseline_only, candidate_only) + 1))
    return min(1.0, float(Fraction(2 * tail, 2**discordant)))


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (Holm 1979) of a family of p-values.

    Sorted ascending, the i-th smallest of m p-values (from 1) becomes
    ``min(1, (m - i + 1) * p)``, made non-decreasing along the sorted order; a
    hypothesis is rejected at level alpha when its adjusted p-value is at most alpha.
    This controls the family-wise error rate under any dependence between the tests.

    Returns:
        The adjusted p-values in the order given.
    """
    m = len(p_values)
    for p in p_values:
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"a p-value must be in [0, 1], not {p}")
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
