"""Agreement statistics against values computed by hand or published with worked examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.compare.calibrate import (
    Confusion,
    cohens_kappa,
    confusion_of,
    krippendorff_alpha,
    landis_koch_band,
    pearson,
    percent_agreement,
    spearman,
)

N = None


def test_kappa_of_the_worked_two_by_two_example_is_0_4() -> None:
    # The worked example of the Wikipedia article "Cohen's kappa" (50 grant proposals):
    # both yes 20, A yes / B no 5, A no / B yes 10, both no 15.
    # p_o = (20 + 15) / 50 = 0.7; A says yes 25/50 = 0.5, B says yes 30/50 = 0.6;
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    table = Confusion(both_pass=20, human_pass_judge_fail=5, human_fail_judge_pass=10, both_fail=15)
    assert table.n == 50
    assert percent_agreement(table) == pytest.approx(0.7)
    assert cohens_kappa(table) == pytest.approx(0.4)
    assert landis_koch_band(0.4) == "fair"


def test_kappa_by_hand_from_the_definition() -> None:
    # 24 items: 11 both pass, 2 human pass / judge fail, 1 human fail / judge pass, 10
    # both fail. p_o = 21/24 = 0.875; human pass 13/24, judge pass 12/24 = 0.5;
    # p_e = 13/24 * 0.5 + 11/24 * 0.5 = 0.5; kappa = 0.375 / 0.5 = 0.75.
    table = Confusion(11, 2, 1, 10)
    assert cohens_kappa(table) == pytest.approx(0.75)
    assert landis_koch_band(0.75) == "substantial"


def test_perfect_disagreement_on_balanced_verdicts_is_kappa_minus_one() -> None:
    assert cohens_kappa(Confusion(0, 5, 5, 0)) == pytest.approx(-1.0)
    assert landis_koch_band(-1.0) == "poor"


def test_kappa_is_undefined_when_both_sides_use_one_verdict_only() -> None:
    assert cohens_kappa(Confusion(both_pass=12)) is None
    assert cohens_kappa(Confusion()) is None
    assert percent_agreement(Confusion()) is None


def test_confusion_counts_pairs_human_first() -> None:
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, True)]
    assert confusion_of(pairs) == Confusion(2, 1, 1, 1)
    assert confusion_of(pairs).rows() == ((2, 1), (1, 1))


@pytest.mark.parametrize(
    ("kappa", "band"),
    [
        (-0.01, "poor"),
        (0.0, "slight"),
        (0.2, "slight"),
        (0.21, "fair"),
        (0.4, "fair"),
        (0.41, "moderate"),
        (0.6, "moderate"),
        (0.61, "substantial"),
        (0.8, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_landis_koch_bands(kappa: float, band: str) -> None:
    # Landis & Koch (1977), Biometrics 33(1), p. 165.
    assert landis_koch_band(kappa) == band


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60),
)
def test_kappa_stays_within_bounds(pairs: list[tuple[bool, bool]]) -> None:
    table = confusion_of(pairs)
    kappa = cohens_kappa(table)
    assert kappa is None or -1.0 - 1e-9 <= kappa <= 1.0 + 1e-9
    if kappa is not None and table.agreed == table.n:
        assert kappa == pytest.approx(1.0)


def test_pearson_and_spearman_of_a_small_vector() -> None:
    # x = 1..5, y = 2 4 5 4 5. Pearson by hand: deviations of x -2 -1 0 1 2, of y
    # -2 0 1 0 1; sum of products 6, sums of squares 10 and 6: r = 6 / sqrt(60) = 0.774597.
    # Spearman: ranks of y with ties averaged are 1 2.5 4.5 2.5 4.5 (mean 3); rank
    # deviations -2 -0.5 1.5 -0.5 1.5; sum of products with x's 7, squares 10 and 9:
    # rho = 7 / sqrt(90) = 0.737865.
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 5.0, 4.0, 5.0]
    r = pearson(x, y)
    rho = spearman(x, y)
    assert r is not None and r.r == pytest.approx(6 / math.sqrt(60))
    assert rho is not None and rho.r == pytest.approx(7 / math.sqrt(90))
    assert r.n == rho.n == 5 and 0 < r.p_value < 1


def test_spearman_of_a_monotone_but_curved_relation_is_one() -> None:
    x = [1.0, 2.0, 3.0, 4.0]
    y = [1.0, 4.0, 9.0, 16.0]
    rho = spearman(x, y)
    r = pearson(x, y)
    assert rho is not None and rho.r == pytest.approx(1.0)
    # Pearson by hand: deviations of x -1.5 -0.5 0.5 1.5, of y -6.5 -3.5 1.5 8.5;
    # products sum to 25, squares to 5 and 129: r = 25 / sqrt(645) = 0.984374.
    assert r is not None and r.r == pytest.approx(25 / math.sqrt(645))


def test_correlations_are_undefined_for_constant_or_tiny_samples() -> None:
    assert pearson([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]) is None
    assert spearman([1.0, 2.0], [2.0, 1.0]) is None
    with pytest.raises(ValueError, match="length"):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School
# for Communication, University of Pennsylvania. Section C's reliability data: four
# observers, twelve units, missing values; the paper gives nominal alpha = 0.743
# (section C) and interval alpha = 0.849 (section E).
PAPER_DATA: list[list[float | None]] = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def test_krippendorff_alpha_of_the_papers_nominal_example() -> None:
    alpha = krippendorff_alpha(PAPER_DATA, "nominal")
    assert alpha is not None and round(alpha, 3) == 0.743


def test_krippendorff_alpha_of_the_papers_interval_example() -> None:
    alpha = krippendorff_alpha(PAPER_DATA, "interval")
    assert alpha is not None and round(alpha, 3) == 0.849


def test_krippendorff_alpha_of_the_papers_binary_example() -> None:
    # Section A: two observers, ten units, binary values; the paper gives alpha = 0.095.
    # By its formula: n = 20 values, n_0 = 14, n_1 = 6, o_01 = 4 disagreeing units:
    # alpha = 1 - (n - 1) * o_01 / (n_0 * n_1) = 1 - 19 * 4 / 84 = 0.095238.
    data: list[list[float | None]] = [
        [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ]
    alpha = krippendorff_alpha(data, "nominal")
    assert alpha is not None and alpha == pytest.approx(1 - 19 * 4 / 84)


def test_krippendorff_alpha_is_undefined_without_two_raters_or_two_values() -> None:
    assert krippendorff_alpha([[1, 0, 1]], "nominal") is None
    assert krippendorff_alpha([[1, 1, N], [1, 1, 1]], "nominal") is None
    assert krippendorff_alpha([[1, N], [N, 0]], "nominal") is None  # nothing pairable
    with pytest.raises(ValueError, match="same units"):
        krippendorff_alpha([[1, 0], [1]], "nominal")
