"""Paired statistics for comparing two runs of one contract on the same cases.

Every function is pure and names the published method it implements, so a reader can
check a figure by hand. ``scipy`` is imported inside the functions that need it (the
exact binomial test and Wilcoxon's signed-rank test); the rest needs only the standard
library, whose ``statistics.NormalDist`` gives the normal quantiles.

Orientation: run A is the baseline and run B the candidate. A paired outcome is one
case checked by both runs; ``PairedTable`` counts them in the four cells of the
paired 2x2 table, and every difference is *candidate minus baseline*, so a negative
difference means the candidate passes less often.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "PairedTable",
    "SignedRankResult",
    "holm_adjust",
    "mcnemar_exact_p",
    "mcnemar_sample_size",
    "newcombe_paired_interval",
    "wilcoxon_signed_rank",
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
    def baseline_rate(self) -> float:
        """The baseline's pass rate over the pairs (0 when there are none)."""
        return self.baseline_passed / self.pairs if self.pairs else 0.0

    @property
    def candidate_rate(self) -> float:
        """The candidate's pass rate over the pairs (0 when there are none)."""
        return self.candidate_passed / self.pairs if self.pairs else 0.0

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
    from scipy.stats import binomtest

    return float(binomtest(baseline_only, discordant, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True, slots=True)
class SignedRankResult:
    """Wilcoxon's signed-rank test of paired score differences.

    Attributes:
        statistic: The smaller of the positive and negative rank sums (0 without data).
        p_value: Two-sided p-value; 1 when every difference is zero.
        nonzero: Differences that were not zero (zeros are dropped, Wilcoxon's method).
        median_difference: Median of all differences, zeros included (0 without data).
    """

    statistic: float
    p_value: float
    nonzero: int
    median_difference: float


def wilcoxon_signed_rank(differences: Sequence[float]) -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test (Wilcoxon 1945) on paired differences.

    Zero differences are dropped first, as Wilcoxon proposed; when nothing is left the
    test has no evidence and the p-value is 1. ``scipy.stats.wilcoxon`` then picks the
    exact null distribution for small samples without ties and the normal
    approximation with a tie correction otherwise.
    """
    import statistics

    median = float(statistics.median(differences)) if differences else 0.0
    nonzero = [d for d in differences if d != 0.0]
    if not nonzero:
        return SignedRankResult(0.0, 1.0, 0, median)
    from scipy.stats import wilcoxon

    result = wilcoxon(nonzero, alternative="two-sided")
    return SignedRankResult(
        float(result.statistic), min(1.0, float(result.pvalue)), len(nonzero), median
    )


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


def mcnemar_sample_size(
    baseline_only_rate: float,
    candidate_only_rate: float,
    *,
    alpha: float = 0.05,
    power: float = 0.80,
) -> int | None:
    """Paired cases needed for McNemar's test to detect a difference (Connor 1987).

    Connor, R. J. (1987), "Sample size for testing differences in proportions for the
    paired-sample design", Biometrics 43:207-211, p. 209: with discordant proportions
    ``p10`` and ``p01``, ``psi = p10 + p01`` and ``delta = p01 - p10``,

        n = (z[1 - alpha/2] * sqrt(psi) + z[power] * sqrt(psi - delta**2))**2 / delta**2

    rounded up. Fed with the observed discordant rates, it answers "how many paired
    cases would show a difference this large with this power?".

    Returns:
        The number of paired cases, or ``None`` when the rates are equal (no
        difference to detect).
    """
    if not (0.0 <= baseline_only_rate <= 1.0 and 0.0 <= candidate_only_rate <= 1.0):
        raise ValueError("discordant rates must be in [0, 1]")
    if baseline_only_rate + candidate_only_rate > 1.0 + 1e-12:
        raise ValueError("discordant rates cannot add up to more than 1")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be strictly between 0 and 1, not {power}")
    delta = candidate_only_rate - baseline_only_rate
    if delta == 0.0:
        return None
    psi = baseline_only_rate + candidate_only_rate
    z_alpha = _z(1.0 - alpha)
    z_power = NormalDist().inv_cdf(power)
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(0.0, psi - delta * delta))
    # Round away float noise before the ceiling so 23.0000000001 is 23.
    return max(1, math.ceil(round(root * root / (delta * delta), 9)))
