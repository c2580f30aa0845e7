"""Wilcoxon's signed-rank test on exact differences, against hand-computed values.

Every reference is arithmetic shown in the test (or a published worked example), never
another library's default: scipy's choice of method, tie and zero handling has changed
between releases, and that is what these tests pin down for ``verifier compare``.
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from statistics import NormalDist

import pytest

from verifier.compare.signed_rank import (
    EXACT_MAX_PAIRS,
    exact_score,
    score_difference,
    wilcoxon_signed_rank,
)

# --- stored scores read as the fractions they stand for --------------------------------


@pytest.mark.parametrize(
    ("stored", "exact"),
    [
        (0.1 + 0.2, Fraction(3, 10)),  # 0.30000000000000004
        (2 / 3, Fraction(2, 3)),  # 0.6666666666666666
        (6 / 7, Fraction(6, 7)),  # a similarity ratio
        (0.5, Fraction(1, 2)),
        (0.0, Fraction(0)),
        (1.0, Fraction(1)),
        (-0.7, Fraction(-7, 10)),
        (4.0, Fraction(4)),
    ],
)
def test_a_stored_score_is_read_as_the_simplest_fraction_near_it(
    stored: float, exact: Fraction
) -> None:
    assert exact_score(stored) == exact


def test_a_score_is_never_moved_by_more_than_the_tolerance() -> None:
    value = 0.123456789123  # no ratio of small integers: read as the float it is
    assert exact_score(value) == Fraction(value)
    # A ratio with a large denominator still reads back exactly from full precision.
    assert exact_score(123457 / 999983) == Fraction(123457, 999983)


def test_a_score_rounded_by_an_older_version_reads_as_its_decimal() -> None:
    assert exact_score(0.333333) == Fraction(333333, 10**6)


def test_a_score_that_is_not_finite_is_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        exact_score(math.nan)


def test_differences_equal_on_paper_are_equal() -> None:
    # As floats 0.3 - 0.1 = 0.19999999999999998 and 0.7 - 0.5 = 0.19999999999999996.
    assert 0.3 - 0.1 != 0.7 - 0.5
    assert score_difference(0.3, 0.1) == score_difference(0.7, 0.5) == Fraction(1, 5)
    assert score_difference(1.0, 2 / 3) == score_difference(2 / 3, 1 / 3) == Fraction(1, 3)


# --- the test ---------------------------------------------------------------------------


def test_ties_and_the_exact_law_on_the_issue_example() -> None:
    # [-1, -1, -2, -2, -3, +1]. Hand: |d| sorted 1, 1, 1, 2, 2, 3 get ranks 2, 2, 2,
    # 4.5, 4.5, 6 (doubled: 4, 4, 4, 9, 9, 12, total 42). W+ = 2 (doubled 4), W- = 19.
    # Doubled W+ is 4, 17 below its mean 21: the sign patterns at least as far out are
    # those with a doubled sum <= 4 ({} and each single 4: 4 of them) and, by symmetry,
    # >= 38 (4 more): p = 8 / 64 = 0.125.
    result = wilcoxon_signed_rank([-1, -1, -2, -2, -3, 1])
    assert (result.statistic, result.nonzero, result.method) == (2.0, 6, "exact")
    assert result.p_value == 0.125
    assert result.median_difference == -1.5


def test_differences_tied_on_paper_are_ranked_as_ties() -> None:
    # The same example in tenths, each difference made from stored scores whose float
    # differences are all distinct (-0.09999999999999998, -0.10000000000000009, ...).
    pairs = [(0.3, 0.2), (0.8, 0.7), (0.9, 0.7), (0.5, 0.3), (0.7, 0.4), (0.1, 0.2)]
    floats = [cand - base for base, cand in pairs]
    assert len({abs(d) for d in floats}) == 6  # no ties left among the floats
    result = wilcoxon_signed_rank([score_difference(cand, base) for base, cand in pairs])
    assert result.p_value == 0.125  # as the hand computation above


def test_all_differences_tied_reduce_to_the_sign_test() -> None:
    # Five differences of +0.2 and one of -0.2, each from different stored scores.
    # Hand: all six tie (rank 3.5), W- = 3.5, so the test counts signs: patterns with
    # 0, 1, 5 or 6 positives, (1 + 6 + 6 + 1) / 64 = 0.21875.
    pairs = [(0.1, 0.3), (0.5, 0.7), (0.3, 0.5), (0.7, 0.9), (0.2, 0.4), (0.6, 0.4)]
    result = wilcoxon_signed_rank([score_difference(cand, base) for base, cand in pairs])
    assert (result.statistic, result.p_value) == (3.5, 14 / 64)


def test_wilcoxon_matches_hollander_wolfe_depression_example() -> None:
    # Hollander & Wolfe (1973), Nonparametric Statistical Methods, p. 29f (the example
    # of R's wilcox.test): Hamilton depression scores of 9 patients at two visits.
    # V = 40 and one-sided p = 0.01953; hand: the negative ranks are 2 and 3, so
    # W- = 5, and 10 of the 512 sign patterns have W- <= 5, two-sided 20/512.
    first = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    second = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    result = wilcoxon_signed_rank(
        [score_difference(a, b) for a, b in zip(first, second, strict=True)]
    )
    assert result.statistic == 5.0
    assert result.p_value == 20 / 512
    assert result.nonzero == 9


@pytest.mark.parametrize(
    ("differences", "statistic", "p_value"),
    [
        # Hand: all five positive, W- = 0; only 1 of 32 sign patterns is that extreme
        # on each side, so p = 2/32.
        ([1, 2, 3, 4, 5], 0.0, 2 / 32),
        # Hand: W- = 1; patterns with W- <= 1 are {} and {1}, so p = 2 * 2/32.
        ([-1, 2, 3, 4, 5], 1.0, 4 / 32),
        # Zeros are dropped before ranking (Wilcoxon's method): the same as the first.
        ([0, 0, 1, 2, 3, 4, 5], 0.0, 2 / 32),
        # Hand: zeros dropped, ranks 1, 2, 3 all positive: 2 of 8 patterns, p = 0.25.
        ([0, 0, 1, 2, 3], 0.0, 2 / 8),
    ],
)
def test_wilcoxon_small_exact_cases_are_hand_computed(
    differences: list[int], statistic: float, p_value: float
) -> None:
    result = wilcoxon_signed_rank(differences)
    assert result.statistic == statistic
    assert result.p_value == p_value


def test_the_exact_law_is_used_up_to_its_limit() -> None:
    # 50 tied differences, 40 positive: the exact test is the sign test, hand
    # p = 2 * sum(C(50, k), k <= 10) / 2**50.
    assert EXACT_MAX_PAIRS == 50
    result = wilcoxon_signed_rank([1] * 40 + [-1] * 10)
    assert result.method == "exact"
    assert result.p_value == 2 * sum(math.comb(50, k) for k in range(11)) / 2**50


def test_above_the_limit_the_normal_approximation_is_tie_and_continuity_corrected() -> None:
    # 51 tied differences, 40 positive. Hand: every rank is 26, W+ = 40 * 26 = 1040,
    # W- = 11 * 26 = 286; mean n(n+1)/4 = 663; variance n(n+1)(2n+1)/24 minus the tie
    # term (51**3 - 51)/48, i.e. 11381.5 - 2762.5 = 8619; z = (1040 - 663 - 1/2) /
    # sqrt(8619) = 4.0555, two-sided p = 2 * Phi(-4.0555) = 5.0e-5.
    result = wilcoxon_signed_rank([1] * 40 + [-1] * 11)
    assert (result.method, result.statistic, result.nonzero) == ("normal", 286.0, 51)
    z = (1040 - 663 - 0.5) / math.sqrt(8619)
    assert result.p_value == pytest.approx(2 * NormalDist().cdf(-z), rel=1e-12)
    assert result.p_value == pytest.approx(5.0e-5, rel=0.01)


def test_wilcoxon_with_every_difference_zero_has_p_one() -> None:
    result = wilcoxon_signed_rank([0, 0, 0])
    assert (result.p_value, result.nonzero, result.statistic, result.method) == (
        1.0,
        0,
        0.0,
        "none",
    )


def test_wilcoxon_without_data_has_p_one() -> None:
    assert wilcoxon_signed_rank([]).p_value == 1.0


def test_wilcoxon_with_one_difference_has_p_one() -> None:
    # Hand: one nonzero difference, two equally likely signs, p = 2 * 1/2.
    assert wilcoxon_signed_rank([Fraction(3, 10)]).p_value == 1.0


def test_wilcoxon_reports_the_median_difference_with_zeros() -> None:
    differences = [Fraction(0), Fraction(0), Fraction(-1, 5), Fraction(1, 10), Fraction(0)]
    assert wilcoxon_signed_rank(differences).median_difference == 0.0


@pytest.mark.e2e
def test_the_test_does_not_use_scipy() -> None:
    # Its figures must not change with the installed scipy's defaults.
    code = "import sys, verifier.compare.signed_rank; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
