"""Trials of a judge that scores on a scale: weighted kappa and its interval, the mean
shift with Wilcoxon's exact p, the pass rates at the claim's ``pass_at``, and the
flipped scores, each computed here again by hand from the known scores."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from tests.judge.messages_server import MessagesServer
from tests.trial._support import NEW_MODEL, OLD_MODEL, expected_scores
from verifier.gaps.store import open_store
from verifier.trial import Candidate, TrialRule, trial_judge
from verifier.trial.figures import measured
from verifier.trial.report import TrialVerdict


def fce_weighted(old: list[int], new: list[int], low: int, high: int) -> tuple[float, float]:
    """Quadratic weighted kappa and its large-sample standard error, from the table of
    categories with Fleiss, Cohen & Everitt's (1969) formula, written out."""
    n, cats = len(old), range(low, high + 1)
    p = {
        (i, j): sum(1 for a, b in zip(old, new, strict=True) if (a, b) == (i, j)) / n
        for i in cats
        for j in cats
    }
    rows = {i: sum(p[(i, j)] for j in cats) for i in cats}
    cols = {j: sum(p[(i, j)] for i in cats) for j in cats}
    w = {(i, j): 1 - (i - j) ** 2 / (high - low) ** 2 for i in cats for j in cats}
    po = sum(p[k] * w[k] for k in p)
    pe = sum(rows[i] * cols[j] * w[(i, j)] for i in cats for j in cats)
    kappa = (po - pe) / (1 - pe)
    wi = {i: sum(cols[j] * w[(i, j)] for j in cats) for i in cats}
    wj = {j: sum(rows[i] * w[(i, j)] for i in cats) for j in cats}
    total = sum(
        p[(i, j)] * (w[(i, j)] - (wi[i] + wj[j]) * (1 - kappa)) ** 2 for i in cats for j in cats
    )
    var = (total - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
    return kappa, math.sqrt(var)


def test_a_scale_judge_is_asked_once_per_verdict_and_measured_by_weighted_kappa(
    store: str, server: MessagesServer
) -> None:
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store, Candidate("scorer", NEW_MODEL, base_url=server.base_url), sample=100
        )
    calls = server.model_calls()
    assert len(calls) == 12 and {c.body["model"] for c in calls} == {NEW_MODEL}
    scores = expected_scores()
    assert {v.case_id: (v.old_score, v.new_score) for v in report.verdicts} == scores
    assert {v.old_triple["model_id"] for v in report.verdicts} == {OLD_MODEL}
    old = [scores[c][0] for c in sorted(scores)]
    new = [scores[c][1] for c in sorted(scores)]
    kappa, se = fce_weighted(old, new, 1, 5)
    document = report.as_dict()
    tone = document["claims"]["tone"]
    assert tone["kind"] == "scale" and tone["n"] == 12
    assert tone["kappa"] == pytest.approx(kappa, abs=1e-6)
    z = 1.959963984540054
    assert tone["kappa_ci"] == pytest.approx([kappa - z * se, min(1.0, kappa + z * se)], abs=1e-6)
    assert tone["kappa_ci_method"] == "wald"
    # Changed: c02 5->4, c05 5->3 (now fails), c08 2->4 (now passes), c10 2->1.
    assert tone["flipped"] == 4 and tone["agreement"] == pytest.approx(8 / 12, abs=1e-6)
    assert tone["mean_shift"] == pytest.approx(-2 / 12, abs=1e-6) and tone["shift_unit"] == "points"
    # |differences| 1, 1, 2, 2: ranks 1.5, 1.5, 3.5, 3.5; the one positive (+2) has 3.5.
    # Of the 16 sign assignments, 12 lie as far from the mean 5 as 3.5 does.
    assert tone["wilcoxon_p"] == pytest.approx(12 / 16)
    # Passing at 4: 7 passed before and 7 after, one each way: McNemar p is 1.
    assert tone["pass_rate_before"] == pytest.approx(7 / 12, abs=1e-6)
    assert tone["pass_rate_after"] == pytest.approx(7 / 12, abs=1e-6)
    assert (tone["stricter"], tone["laxer"], tone["mcnemar_p"]) == (1, 1, 1.0)
    assert document["overall"] == tone  # one claim: the overall is that claim's
    flipped = {f["case_id"]: f for f in document["flipped"]}
    assert set(flipped) == {"c02", "c05", "c08", "c10"}
    assert (flipped["c02"]["old"], flipped["c02"]["new"]) == ("pass", "pass")
    assert (flipped["c02"]["old_score"], flipped["c02"]["new_score"]) == (5, 4)
    assert flipped["c02"]["new_reason"] == "the candidate scored tone 4"
    assert flipped["c02"]["scale"] == {"min": 1, "max": 5, "pass_at": 4}
    outcome, why = report.decision()
    assert outcome == "fail" and f"kappa's lower bound {kappa - z * se:.3f}" in why
    assert report.rule.decide(report.overall()) == (outcome, why)
    loose = TrialRule(min_kappa=-1.0, max_shift=1.0)
    assert loose.decide(report.overall())[0] == "pass"


def verdict(claim: str, old: bool, new: bool, scores: tuple[int, int] | None) -> TrialVerdict:
    scale = None if scores is None else (1, 5, 4)
    return TrialVerdict(
        seq=0, run_id="r", case_id="c", claim_id=claim, old=old, new=new,
        old_reason="", new_reason="", old_triple={}, new_triple={}, scale=scale,
        old_score=None if scores is None else scores[0],
        new_score=None if scores is None else scores[1],
    )  # fmt: skip


def test_a_judge_of_both_kinds_is_measured_on_shares_of_each_scale() -> None:
    verdicts = [
        verdict("yes", True, True, None),
        verdict("yes", True, False, None),
        verdict("yes", False, False, None),
        verdict("tone", True, True, (5, 5)),
        verdict("tone", False, True, (2, 4)),
        verdict("tone", False, False, (1, 1)),
    ]
    figures = measured(verdicts)
    # Shares of the range: pass/fail as 1/0, a score s as (s - 1) / 4.
    old = [1, 1, 0, 1, 0.25, 0]
    new = [1, 0, 0, 1, 0.75, 0]
    n = len(old)
    observed = sum((a - b) ** 2 for a, b in zip(old, new, strict=True)) / n
    expected = sum((a - b) ** 2 for a in old for b in new) / n**2
    assert figures.kind == "mixed"
    assert figures.kappa == pytest.approx(1 - observed / expected)
    assert figures.flipped == 2 and figures.shift_unit == "range"
    # Only the scale verdicts shift: 0, +0.5, 0.
    assert figures.mean_shift == pytest.approx(float(Fraction(1, 2) / 3))
    assert figures.table.baseline_only == 1 and figures.table.candidate_only == 1


def test_a_scale_sample_is_stratified_by_pass_at(store: str, server: MessagesServer) -> None:
    # tone: 7 stored passes (5 >= 4) and 5 fails (2). A sample of 4: one of each, then
    # 1.2 and 0.8 of the other 2, the larger remainder first: two of each.
    with open_store(store) as gap_store:
        report = trial_judge(
            gap_store, Candidate("scorer", NEW_MODEL, base_url=server.base_url), sample=4, seed=2
        )
    assert len(server.model_calls()) == 4
    assert sorted(v.old for v in report.verdicts) == [False, False, True, True]
