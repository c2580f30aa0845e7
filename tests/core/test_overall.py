"""A case's overall: the weighted mean of its scale claims' scores on their own scale,
over the scored ones only; the run's mean over the cases that have one."""

from __future__ import annotations

import pytest

from verifier.overall import OverallRule, OverallTally, overall_text
from verifier.results import ClaimResult

# Two dimensions on 1-5, safety weighted twice; a pass/fail claim beside them.
RULE = OverallRule(weights={"accuracy": 1.0, "safety": 2.0}, low=1, high=5, revise_below=3.0)


def _scored(claim_id: str, score_on_scale: int | None, status: str = "pass") -> ClaimResult:
    stored = None if score_on_scale is None else (score_on_scale - 1) / 4
    return ClaimResult(claim_id, "judge", status, stored, "", {})  # type: ignore[arg-type]


def test_the_overall_is_the_weighted_mean_on_the_scale() -> None:
    overall = RULE.of([_scored("accuracy", 4), _scored("safety", 2, "fail"), _scored("tone", 1)])
    # (1 * 4 + 2 * 2) / 3 = 8 / 3: the pass/fail claim `tone` has no part in it.
    assert overall.value == round(8 / 3, 9)
    assert overall.scored == 2
    assert overall.revise  # 2.67 is below 3
    assert overall.text() == "2.67 (revise)"


def test_errored_and_skipped_scale_claims_are_left_out_not_counted_as_zero() -> None:
    overall = RULE.of([_scored("accuracy", 4), _scored("safety", None, "error")])
    assert (overall.value, overall.scored, overall.revise) == (4.0, 1, False)
    skipped = RULE.of([_scored("accuracy", None, "skipped"), _scored("safety", 3)])
    assert (skipped.value, skipped.scored, skipped.revise) == (3.0, 1, False)  # 3 is not below 3


def test_a_case_with_no_scale_score_has_no_overall() -> None:
    overall = RULE.of([_scored("accuracy", None, "error"), _scored("safety", None, "skipped")])
    assert (overall.value, overall.scored, overall.revise) == (None, 0, False)
    assert overall.text() == "—"
    assert overall.as_dict() == {"value": None, "scored": 0, "revise": False}


def test_the_run_mean_is_over_the_cases_with_an_overall() -> None:
    tally = OverallTally(RULE)
    tally.add("a", RULE.of([_scored("accuracy", 5), _scored("safety", 5)]))  # 5
    tally.add("b", RULE.of([_scored("accuracy", 1), _scored("safety", 2)]))  # 5/3: revise
    tally.add("c", RULE.of([_scored("safety", None, "error")]))  # none
    assert tally.mean == pytest.approx((5 + 5 / 3) / 2, abs=1e-9)
    assert (tally.cases, tally.without, tally.revise, tally.revise_ids) == (2, 1, 1, ["b"])
    assert tally.text() == (
        "mean overall 3.33 on 1-5 (2 cases; 1 without a scale score; 1 to revise, below 3: b)"
    )


def test_a_run_without_any_overall_says_so_and_names_no_mean() -> None:
    tally = OverallTally(OverallRule(weights={"accuracy": 1.0}, low=1, high=5))
    tally.add("a", tally.rule.of([_scored("accuracy", None, "error")]))
    assert tally.mean is None
    assert tally.as_dict()["mean"] is None
    assert tally.text() == "mean overall — on 1-5 (0 cases; 1 without a scale score)"
    assert overall_text({"not": "an overall"}) is None
