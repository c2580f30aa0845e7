"""Exact power of the exact McNemar test and the paired cases it needs, by hand.

The test rejects when the smaller side of the ``d`` discordant pairs is at most
``k(d)``, the largest ``k`` with ``2 * P(Binomial(d, 1/2) <= k) <= alpha``. At alpha
0.05, by hand: ``k = -1`` (never) for d <= 5 (2/32 = 0.0625 > 0.05), ``k(6) = k(7) =
k(8) = 0`` (2/64, 2/128, 2/256; with k = 1: 14/64, 16/128, 18/256 = 0.0703), ``k(9) =
k(10) = 1`` (2 * 10/512 = 0.039, 2 * 11/1024 = 0.0215; with k = 2: 2 * 46/512, 2 *
56/1024 = 0.109).
"""

from __future__ import annotations

import math

import pytest

from verifier.compare.power import (
    MAX_CASES,
    mcnemar_cases_needed,
    mcnemar_power,
    min_discordant,
)


def test_fewest_discordant_pairs_that_can_reach_alpha() -> None:
    # Hand: 2 / 2**5 = 0.0625 > 0.05 >= 2 / 2**6; 2 / 2**7 = 0.0156 > 0.01 >= 2 / 2**8.
    assert min_discordant(0.05) == 6
    assert min_discordant(0.01) == 8


def test_six_of_six_worse_needs_six_cases() -> None:
    # Every pair regresses: the test rejects exactly when there are 6 pairs or more.
    # (Connor's formula said 4, where the exact test cannot reject at all.)
    needed = mcnemar_cases_needed(1.0, 0.0)
    assert (needed.cases, needed.power, needed.beyond) == (6, 1.0, False)
    assert mcnemar_power(5, 1.0, 0.0) == 0.0


def test_half_the_pairs_regressing_needs_fifteen_cases() -> None:
    # p10 = 1/2, p01 = 0: every discordant pair is a regression, so the power is
    # P(Binomial(n, 1/2) >= 6). Hand: n = 14: 1 - (1 + 14 + 91 + 364 + 1001 + 2002) /
    # 16384 = 12911/16384 = 0.788; n = 15: 1 - (1 + 15 + 105 + 455 + 1365 + 3003) /
    # 32768 = 27824/32768 = 0.849.
    assert mcnemar_power(14, 0.5, 0.0) == pytest.approx(12911 / 16384, abs=1e-12)
    needed = mcnemar_cases_needed(0.5, 0.0)
    assert needed.cases == 15
    assert needed.power == pytest.approx(27824 / 32768, abs=1e-12)


def test_power_when_every_pair_is_discordant() -> None:
    # n = 7, p10 = 0.9, p01 = 0.1: all 7 pairs are discordant and k(7) = 0, so the test
    # rejects when all 7 go one way: 0.9**7 + 0.1**7.
    assert mcnemar_power(7, 0.9, 0.1) == pytest.approx(0.9**7 + 0.1**7, abs=1e-12)


def test_power_sums_over_the_number_of_discordant_pairs() -> None:
    # n = 10, p10 = 0.3, p01 = 0.1: D ~ Binomial(10, 0.4) and a discordant pair is a
    # regression with probability 0.75; k(d) from the module docstring above.
    k = {6: 0, 7: 0, 8: 0, 9: 1, 10: 1}

    def tail(d: int, upto: int) -> float:  # P(Binomial(d, 0.75) <= upto)
        return sum(math.comb(d, b) * 0.75**b * 0.25 ** (d - b) for b in range(upto + 1))

    expected = sum(
        math.comb(10, d) * 0.4**d * 0.6 ** (10 - d) * (tail(d, k[d]) + 1 - tail(d, d - k[d] - 1))
        for d in k
    )
    assert mcnemar_power(10, 0.3, 0.1) == pytest.approx(expected, abs=1e-12)


def test_the_large_sample_formula_promised_power_the_exact_test_lacks() -> None:
    # Connor (1987) gives 23 cases for p10 = 0.05, p01 = 0.45 (n = 22.01, rounded up);
    # the exact test has 78% power there and first reaches 80% at 25.
    assert mcnemar_power(23, 0.05, 0.45) < 0.78
    assert mcnemar_power(24, 0.05, 0.45) < 0.80
    assert mcnemar_cases_needed(0.05, 0.45).cases == 25
    assert mcnemar_cases_needed(0.45, 0.05).cases == 25


def test_no_difference_needs_no_search() -> None:
    needed = mcnemar_cases_needed(0.1, 0.1)
    assert (needed.cases, needed.searched, needed.beyond) == (None, 0, False)
    assert mcnemar_cases_needed(0.0, 0.0).cases is None


def test_a_difference_too_small_to_detect_within_the_limit_says_so() -> None:
    needed = mcnemar_cases_needed(0.10, 0.11)
    assert (needed.cases, needed.searched, needed.beyond) == (None, MAX_CASES, True)


@pytest.mark.parametrize(("b", "c"), [(0.7, 0.6), (-0.1, 0.2), (0.2, 1.1)])
def test_impossible_rates_are_refused(b: float, c: float) -> None:
    with pytest.raises(ValueError, match="rates"):
        mcnemar_cases_needed(b, c)
    with pytest.raises(ValueError, match="rates"):
        mcnemar_power(10, b, c)


def test_a_power_or_alpha_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match="power"):
        mcnemar_cases_needed(0.1, 0.3, power=1.0)
    with pytest.raises(ValueError, match="alpha"):
        mcnemar_cases_needed(0.1, 0.3, alpha=0.0)
