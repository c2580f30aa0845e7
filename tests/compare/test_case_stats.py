"""The figures of case labels against case scores, checked by hand and against scipy."""

from __future__ import annotations

import math
import random
from itertools import product

import pytest

from verifier.compare.case_stats import auc, midranks, pearson_r, point_biserial, spearman_rank

Z95 = 1.959963984540054

# The shipped example's case scores (pass shares): acct-001 .. acct-005.
SCORES = [1.0, 1.0, 5 / 11, 1.0, 2 / 11]
UP = [True, True, False, False, False]


def test_auc_counts_each_up_down_pair_with_ties_one_half() -> None:
    up = [s for s, u in zip(SCORES, UP, strict=True) if u]
    down = [s for s, u in zip(SCORES, UP, strict=True) if not u]
    found = auc(up, down)
    assert found is not None
    # Each up case (1.0) beats 5/11 and 2/11 and ties 1.0: (1 + 1 + 0.5) / 3 each.
    assert found.value == pytest.approx(5 / 6, abs=1e-12)
    # DeLong: the up cases' components are both 5/6 (variance 0); the down cases'
    # are 1, 0.5, 1 (variance 1/12); var = 0 / 2 + (1/12) / 3 = 1/36, SE 1/6.
    assert found.ci95 == pytest.approx((5 / 6 - Z95 / 6, 1.0), abs=1e-12)
    assert found.n == 5


def _delong_by_pairs(up: list[float], down: list[float]) -> tuple[float, float]:
    """DeLong's AUC and variance from its definition, pair by pair."""

    def psi(x: float, y: float) -> float:
        return 1.0 if x > y else 0.5 if x == y else 0.0

    v10 = [sum(psi(x, y) for y in down) / len(down) for x in up]
    v01 = [sum(psi(x, y) for x in up) / len(up) for y in down]

    def var(values: list[float]) -> float:
        mean = sum(values) / len(values)
        return sum((v - mean) ** 2 for v in values) / (len(values) - 1)

    return sum(v10) / len(v10), var(v10) / len(up) + var(v01) / len(down)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_auc_from_mid_ranks_matches_delong_pair_by_pair_and_scipy(seed: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(seed)
    up = [rng.choice([0.2, 0.4, 0.6, 0.8, 1.0]) for _ in range(17)]
    down = [rng.choice([0.0, 0.2, 0.4, 0.6]) for _ in range(11)]
    found = auc(up, down)
    assert found is not None and found.ci95 is not None
    value, variance = _delong_by_pairs(up, down)
    assert found.value == pytest.approx(value, abs=1e-12)
    half = Z95 * math.sqrt(variance)
    assert found.ci95 == pytest.approx((max(0, value - half), min(1, value + half)), abs=1e-12)
    u = stats.mannwhitneyu(up, down, alternative="two-sided").statistic
    assert found.value == pytest.approx(u / (len(up) * len(down)), abs=1e-12)


def test_auc_without_two_cases_on_each_side_has_no_interval() -> None:
    assert auc([], [0.1]) is None
    one = auc([0.9], [0.1, 0.2])
    assert one is not None and one.value == 1.0 and one.ci95 is None
    separated = auc([0.8, 0.9], [0.1, 0.2])  # no variance: no made-up interval
    assert separated is not None and separated.value == 1.0 and separated.ci95 is None


def test_point_biserial_is_pearson_of_thumbs_with_a_fisher_interval() -> None:
    found = point_biserial(UP, SCORES)
    assert found is not None and found.ci95 is not None
    # By hand: mean score of ups 1, of downs (5 + 11 + 2) / 33 = 18/33; share up p = 2/5;
    # r = (M1 - M0) / s_n * sqrt(p q), s_n the population SD of the scores.
    mean = sum(SCORES) / 5
    s_n = math.sqrt(sum((s - mean) ** 2 for s in SCORES) / 5)
    r = (1 - 18 / 33) / s_n * math.sqrt(2 / 5 * 3 / 5)
    assert found.value == pytest.approx(r, abs=1e-12)
    half = Z95 / math.sqrt(5 - 3)
    assert found.ci95 == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    stats = pytest.importorskip("scipy.stats")
    assert found.value == pytest.approx(stats.pointbiserialr(UP, SCORES).statistic, abs=1e-12)


def test_spearman_uses_mid_ranks_and_bonett_wright_interval() -> None:
    people = [5.0, 4.0, 2.0, 4.0, 1.0]
    assert midranks(people) == [5.0, 3.5, 2.0, 3.5, 1.0]
    assert midranks(SCORES) == [4.0, 4.0, 2.0, 4.0, 1.0]
    found = spearman_rank(people, SCORES)
    assert found is not None and found.ci95 is not None
    r = found.value
    assert r == pytest.approx(pearson_r(midranks(people), midranks(SCORES)))
    half = Z95 * math.sqrt(1 + r * r / 2) / math.sqrt(5 - 3)
    assert found.ci95 == pytest.approx(
        (math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), abs=1e-12
    )
    stats = pytest.importorskip("scipy.stats")
    assert r == pytest.approx(stats.spearmanr(people, SCORES).statistic, abs=1e-12)


def test_undefined_figures_are_none_never_made_up() -> None:
    assert point_biserial([True, True, True], [0.1, 0.5, 0.9]) is None  # one thumbs only
    assert point_biserial([True, False, True], [0.5, 0.5, 0.5]) is None  # one score only
    assert spearman_rank([1.0, 2.0], [1.0, 2.0]) is None  # two cases
    three = spearman_rank([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    assert three is not None and three.ci95 is None  # Fisher's interval needs four
    perfect = point_biserial([True, True, False, False], [0.9, 0.9, 0.1, 0.1])
    assert perfect is not None and perfect.value == 1.0 and perfect.ci95 is None
    with pytest.raises(ValueError, match="differ in length"):
        spearman_rank([1.0], [1.0, 2.0])


def test_every_small_thumbs_table_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    scores = [0.0, 0.5, 0.5, 1.0]
    for thumbs in product([True, False], repeat=4):
        found = point_biserial(list(thumbs), scores)
        if len(set(thumbs)) == 1:
            assert found is None
            continue
        assert found is not None
        expected = stats.pointbiserialr(list(thumbs), scores).statistic
        assert found.value == pytest.approx(expected, abs=1e-12)
