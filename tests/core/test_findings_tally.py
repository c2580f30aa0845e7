"""A findings claim's run-level micro and macro averages (verifier.findings_tally)."""

from __future__ import annotations

from typing import Any

import pytest

from verifier.findings_tally import FindingsTally, findings_lines, findings_rows


def _evidence(matched: int, expected: int, actual: int) -> dict[str, Any]:
    pairs = [{"expected": i, "actual": i} for i in range(matched)]
    return {
        "matched": pairs,
        "expected_count": expected,
        "actual_count": actual,
        "match_on": ["dimension", "severity"],
    }


def test_micro_sums_the_counts_and_macro_averages_the_defined_cases() -> None:
    tally = FindingsTally()
    tally.add("pass", _evidence(2, 3, 3))  # recall 2/3, precision 2/3, F1 2/3
    tally.add("fail", _evidence(0, 0, 1))  # recall undefined, precision 0, F1 0
    tally.add("fail", _evidence(0, 2, 0))  # recall 0, precision undefined, F1 0
    # micro: 2 matched of 5 expected and of 4 given; F1 = 2*2 / (5 + 4).
    assert tally.micro("recall") == pytest.approx(2 / 5)
    assert tally.micro("precision") == pytest.approx(2 / 4)
    assert tally.micro("f1") == pytest.approx(4 / 9)
    # macro: each figure over the cases where it is defined, and those counted.
    assert tally.macro("recall") == pytest.approx((2 / 3 + 0) / 2)
    assert tally.macro("precision") == pytest.approx((2 / 3 + 0) / 2)
    assert tally.macro("f1") == pytest.approx((2 / 3 + 0 + 0) / 3)
    assert tally.as_dict()["macro_cases"] == {"recall": 2, "precision": 2, "f1": 3}


def test_an_error_is_counted_apart_not_as_zero() -> None:
    tally = FindingsTally()
    tally.add("pass", _evidence(1, 1, 1))
    tally.add("error", {"field": "output", "match_on": ["dimension"]})
    tally.add("skipped", {"match_on": ["dimension"]})
    figures = tally.as_dict()
    assert (figures["cases"], figures["errors"]) == (1, 1)
    assert figures["micro"] == {"recall": 1.0, "precision": 1.0, "f1": 1.0}
    assert figures["macro"] == {"recall": 1.0, "precision": 1.0, "f1": 1.0}


def test_a_run_with_nothing_expected_or_given_has_no_figure() -> None:
    tally = FindingsTally()
    tally.add("pass", _evidence(0, 0, 0))
    assert tally.micro("precision") is None
    assert tally.macro("recall") is None
    assert findings_lines({"review": tally.as_dict()}) == [
        "review: micro recall —, precision —, F1 —; macro recall —, precision —, F1 — "
        "(1 case; macro leaves out 1 undefined recall, 1 undefined precision, 1 undefined f1)"
    ]


def test_stored_rows_give_the_tally_a_run_gives() -> None:
    bodies = [
        {"claim_id": "review", "status": "pass", "evidence": _evidence(2, 3, 3)},
        {"claim_id": "review", "status": "pass", "evidence": {"redacted": ["expected"]}},
        {"claim_id": "other", "status": "pass", "evidence": {"score": 1}},
        {"claim_id": "review", "status": "error", "evidence": {"match_on": ["dimension"]}},
    ]
    tallies = findings_rows(bodies)
    assert list(tallies) == ["review"]  # the redacted row is no findings row it can tell
    assert tallies["review"].as_dict()["errors"] == 1
    run = FindingsTally()
    run.add("pass", _evidence(2, 3, 3))
    run.add("error", {"match_on": ["dimension"]})
    assert tallies["review"].as_dict() == run.as_dict()
