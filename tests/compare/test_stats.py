"""Paired statistics against reference values computed independently of this code.

Each reference names where it comes from: a published worked example, or arithmetic
done by hand (shown in the test so it can be checked again).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.compare.stats import (
    PairedTable,
    holm_adjust,
    mcnemar_exact_p,
    newcombe_paired_interval,
    wilson_interval,
)

# --- exact McNemar test -----------------------------------------------------------


def test_mcnemar_exact_one_against_nine_is_hand_computed_binomial_tail() -> None:
    # Hand: 2 * (C(10,0) + C(10,1)) / 2**10 = 2 * 11 / 1024 = 0.021484375.
    assert mcnemar_exact_p(1, 9) == pytest.approx(0.021484375, abs=1e-15)
    assert mcnemar_exact_p(9, 1) == pytest.approx(0.021484375, abs=1e-15)


def test_mcnemar_exact_matches_armitage_and_berry_culture_media_example() -> None:
    # Armitage & Berry (1994), Statistical Methods in Medical Research, p. 127: two
    # media for culturing M. tuberculosis on 50 sputum specimens, discordant 12 and 2;
    # exact two-sided P = 0.0129 (as StatsDirect's manual reports it). Hand:
    # 2 * (1 + 14 + 91) / 2**14 = 212 / 16384 = 0.012939453125.
    assert mcnemar_exact_p(12, 2) == pytest.approx(0.012939453125, abs=1e-15)
    assert round(mcnemar_exact_p(12, 2), 4) == 0.0129


def test_mcnemar_exact_matches_fagerland_cavo_example() -> None:
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables,
    # ch. 8: complete response before and after consolidation therapy (Cavo et al.
    # 2012), table [[59, 6], [16, 80]]: McNemar exact conditional test P = 0.052479.
    assert mcnemar_exact_p(6, 16) == pytest.approx(0.052479, abs=5e-7)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert mcnemar_exact_p(0, 0) == 1.0


def test_mcnemar_with_one_discordant_pair_is_one() -> None:
    # Hand: one pair either way is the most likely outcome; 2 * 1/2 = 1.
    assert mcnemar_exact_p(1, 0) == 1.0


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact_p(-1, 3)


# --- Wilson and Newcombe intervals ---------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n", "expected"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion:
        # comparison of seven methods", Statistics in Medicine 17:857-872, Table II,
        # score method without continuity correction.
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
    ],
)
def test_wilson_interval_matches_newcombe_table(
    successes: int, n: int, expected: tuple[float, float]
) -> None:
    lower, upper = wilson_interval(successes, n)
    assert (round(lower, 4), round(upper, 4)) == expected


def test_newcombe_paired_interval_matches_fagerland_cavo_example() -> None:
    # Fagerland, Lydersen & Laake (2017), ch. 8, Cavo et al. table [[59, 6], [16, 80]]:
    # estimate -0.0621, Newcombe square-and-add 95% CI -0.1186 to -0.0046 (the values
    # the R package contingencytables, which accompanies the book, tests for). Rows
    # are the second measurement there, so 6 pairs favour it and 16 the first.
    table = PairedTable(both_pass=59, baseline_only=16, candidate_only=6, both_fail=80)
    assert round(table.difference, 4) == -0.0621
    lower, upper = newcombe_paired_interval(table)
    assert (round(lower, 4), round(upper, 4)) == (-0.1186, -0.0046)


def test_newcombe_interval_without_discordant_pairs_is_not_a_point() -> None:
    # Hand: all 10 pairs pass in both runs, so both margins are 10/10 with Wilson
    # lower limit n / (n + z**2) = 10 / (10 + 1.959964**2) = 0.722467; the correlation
    # term is 0 (a margin is empty), so the interval is +/- (1 - 0.722467).
    lower, upper = newcombe_paired_interval(PairedTable(both_pass=10))
    assert lower == pytest.approx(-0.277533, abs=1e-6)
    assert upper == pytest.approx(0.277533, abs=1e-6)


def test_newcombe_interval_of_no_pairs_is_everything() -> None:
    assert newcombe_paired_interval(PairedTable()) == (-1.0, 1.0)


def test_swapping_the_runs_mirrors_the_interval() -> None:
    forward = newcombe_paired_interval(PairedTable(12, 7, 2, 9))
    backward = newcombe_paired_interval(PairedTable(12, 2, 7, 9))
    assert forward[0] == pytest.approx(-backward[1])
    assert forward[1] == pytest.approx(-backward[0])


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_newcombe_interval_holds_the_estimate_within_bounds(
    both_pass: int, baseline_only: int, candidate_only: int, both_fail: int
) -> None:
    table = PairedTable(both_pass, baseline_only, candidate_only, both_fail)
    lower, upper = newcombe_paired_interval(table)
    assert -1.0 <= lower <= upper <= 1.0
    if table.pairs:
        assert lower - 1e-12 <= table.difference <= upper + 1e-12


def test_paired_table_rates_and_difference() -> None:
    table = PairedTable(both_pass=5, baseline_only=3, candidate_only=1, both_fail=1)
    assert (table.pairs, table.baseline_passed, table.candidate_passed) == (10, 8, 6)
    assert (table.baseline_rate, table.candidate_rate) == (0.8, 0.6)
    assert table.difference == pytest.approx(-0.2)


# --- Holm's step-down correction ------------------------------------------------------


def test_holm_matches_hand_worked_example() -> None:
    # Hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 gives 0.02, 0.03, 0.06,
    # 0.04; made non-decreasing: 0.02, 0.03, 0.06, 0.06; back in the given order.
    adjusted = holm_adjust([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_rejections_match_the_step_down_procedure() -> None:
    # Holm (1979): reject while p(i) <= alpha / (m - i + 1). Hand, alpha 0.05, m = 4:
    # 0.005 <= 0.0125 yes, 0.01 <= 0.0167 yes, 0.03 <= 0.025 no: stop.
    adjusted = holm_adjust([0.01, 0.04, 0.03, 0.005])
    assert [p <= 0.05 for p in adjusted] == [True, False, False, True]


def test_holm_caps_at_one_and_keeps_single_and_empty_families() -> None:
    assert holm_adjust([0.5, 0.6]) == [1.0, 1.0]
    assert holm_adjust([0.04]) == [0.04]
    assert holm_adjust([]) == []


def test_holm_rejects_a_p_value_outside_zero_one() -> None:
    with pytest.raises(ValueError):
        holm_adjust([0.2, 1.5])


@given(st.lists(st.floats(0.0, 1.0), max_size=12))
def test_holm_never_lowers_a_p_value_and_keeps_their_order(p_values: list[float]) -> None:
    adjusted = holm_adjust(p_values)
    assert all(p <= a <= 1.0 for p, a in zip(p_values, adjusted, strict=True))
    for i, p in enumerate(p_values):
        for j, q in enumerate(p_values):
            if p < q:
                assert adjusted[i] <= adjusted[j]
