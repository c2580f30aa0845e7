"""The rule's edges (an undefined kappa is undecided, not a fail) and the stratified draw."""

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


def test_perfect_agreement_or_one_verdict_throughout_leaves_the_rule_undecided() -> None:
    rule = TrialRule()
    same = figures_of([(True, True)] * 5 + [(False, False)] * 5)
    assert same.kappa == 1.0 and same.kappa_ci95 is None
    assert rule.decide(same) == ("undecided", "kappa's interval is undefined (no disagreement)")
    one = figures_of([(True, True)] * 4)
    assert rule.decide(one)[1] == "kappa's interval is undefined (one verdict throughout)"
    assert rule.decide(figures_of([]))[0] == "undecided"


def test_the_rule_passes_a_close_candidate_on_many_verdicts() -> None:
    # 400 verdicts, 6 flipped each way: kappa 0.94, the difference 0.
    pairs = [(True, True)] * 194 + [(False, False)] * 194 + [(True, False)] * 6
    pairs += [(False, True)] * 6
    figures = figures_of(pairs)
    assert figures.kappa == pytest.approx(0.94)
    outcome, why = TrialRule().decide(figures)
    assert outcome == "pass", why
    assert TrialRule(max_shift=0.01).decide(figures)[0] == "fail"
