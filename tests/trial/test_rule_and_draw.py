"""The rule's edges (an undefined kappa is undecided, not a fail; perfect agreement is
bounded, not undecided) and the stratified draw."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pytest

from verifier.trial import TrialRule, figures_of
from verifier.trial.draw import allocate, stratified


@dataclass(frozen=True)
class Row:
    seq: int
    claim_id: str
    status: str


def test_allocation_takes_one_of_each_then_the_rest_by_largest_remainders() -> None:
    # One of each, then 4 of 20 left: 1.2, 0.8, 1.2, 0.8; the larger remainders win.
    assert allocate([7, 5, 7, 5], 8) == [2, 2, 2, 2]
    assert allocate([100, 2], 10) == [9, 1]  # the rare stratum is not rounded away
    assert allocate([3, 3], 3) == [2, 1]  # a tie goes to the earlier stratum
    assert allocate([3, 2], 9) == [3, 2]  # a sample of all takes all
    assert allocate([5, 5, 5], 2) == [1, 1, 0]  # no room for one of each: by proportion
    assert allocate([4, 0, 2], 3) == [2, 0, 1]  # an empty stratum takes nothing


def test_a_draw_is_stratified_deterministic_and_in_store_order() -> None:
    rows = [Row(n, "a" if n % 2 else "b", "pass" if n % 3 else "fail") for n in range(1, 61)]
    drawn = stratified(rows, 12, seed=1)
    assert drawn == stratified(rows, 12, seed=1)
    assert drawn != stratified(rows, 12, seed=2)
    assert [r.seq for r in drawn] == sorted(r.seq for r in drawn)
    sizes = Counter((r.claim_id, r.status) for r in rows)
    got = Counter((r.claim_id, r.status) for r in drawn)
    keys = sorted(sizes)
    assert [got[k] for k in keys] == allocate([sizes[k] for k in keys], 12)
    assert stratified(rows, 100, seed=3) == rows


def test_one_verdict_throughout_or_nothing_asked_leaves_the_rule_undecided() -> None:
    rule = TrialRule()
    one = figures_of([(True, True)] * 4)
    assert one.kappa is None and one.kappa_ci is None
    assert rule.decide(one) == ("undecided", "kappa is undefined (one verdict throughout)")
    assert rule.decide(figures_of([])) == ("undecided", "no verdict was re-asked")


def test_perfect_agreement_on_few_verdicts_fails_by_the_zero_disagreement_bound() -> None:
    # 5 of 5 agree, 3 passes and 2 fails on both sides: p_e = 0.6**2 + 0.4**2 = 0.52.
    # Clopper-Pearson's lower bound of p_o with none disagreeing: 0.025**(1/5).
    same = figures_of([(True, True)] * 3 + [(False, False)] * 2)
    bound = (0.025 ** (1 / 5) - 0.52) / (1 - 0.52)
    assert bound == pytest.approx(-0.087133, abs=1e-6)
    assert same.kappa == 1.0 and same.kappa_ci == pytest.approx((bound, 1.0))
    assert same.kappa_ci_method == "zero-disagreement bound"
    assert same.as_dict()["agreement"] == 1.0 and same.flipped == 0
    outcome, why = TrialRule().decide(same)
    assert outcome == "fail"
    assert why.startswith("kappa's lower bound -0.087 is below 0.6")


def test_perfect_agreement_on_many_verdicts_passes() -> None:
    # 200 of 200 agree, half passes: p_e = 0.5, p_o's bound 0.025**(1/200).
    same = figures_of([(True, True)] * 100 + [(False, False)] * 100)
    bound = (0.025 ** (1 / 200) - 0.5) / 0.5
    assert bound == pytest.approx(0.963449, abs=1e-6)
    assert same.kappa_ci == pytest.approx((bound, 1.0))
    outcome, why = TrialRule().decide(same)
    assert outcome == "pass", why
    assert why.startswith("kappa's lower bound 0.963 >= 0.6")


def test_a_perfect_scale_is_bounded_by_its_widest_disagreement() -> None:
    from fractions import Fraction

    from verifier.trial.figures import Scores

    # Scores 1..5 (widest squared distance 16), 12 pairs all agreeing: 6 at 5, 6 at 2.
    # D_e = mean over all 144 pairings of (h - j)**2: 72 of them differ by 3, so 4.5.
    points = [(Fraction(5), Fraction(5))] * 6 + [(Fraction(2), Fraction(2))] * 6
    passes = [(True, True)] * 6 + [(False, False)] * 6
    same = figures_of(passes, Scores(points, 16.0, [Fraction(0)] * 12, "points"))
    bound = 1 - (1 - 0.025 ** (1 / 12)) * 16 / 4.5
    assert same.kind == "scale" and same.kappa == 1.0
    assert same.kappa_ci == pytest.approx((bound, 1.0))
    assert same.mean_shift == 0.0 and same.wilcoxon_p == 1.0
    assert TrialRule().decide(same)[0] == "fail"


def test_the_rule_passes_a_close_candidate_on_many_verdicts() -> None:
    # 400 verdicts, 6 flipped each way: kappa 0.94, the difference 0.
    pairs = [(True, True)] * 194 + [(False, False)] * 194 + [(True, False)] * 6
    pairs += [(False, True)] * 6
    figures = figures_of(pairs)
    assert figures.kappa == pytest.approx(0.94)
    outcome, why = TrialRule().decide(figures)
    assert outcome == "pass", why
    assert TrialRule(max_shift=0.01).decide(figures)[0] == "fail"
