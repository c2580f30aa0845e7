from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from rapidfuzz import fuzz

Make = Callable[..., Any]
DISCLAIMER = "This is not financial advice."
LITERAL = {"rubric": "similar", "field": "output", "reference": DISCLAIMER}


def test_identical_text_passes_with_score_one(make_check: Make) -> None:
    outcome = make_check(LITERAL)({"output": DISCLAIMER})
    assert outcome.status == "pass"
    assert outcome.score == 1.0
    assert outcome.evidence["ratio"] == 100.0


def test_close_text_passes_and_score_is_ratio_over_100(make_check: Make) -> None:
    outcome = make_check(LITERAL)({"output": "This is not financial advice!"})
    assert outcome.status == "pass"
    assert outcome.score == pytest.approx(outcome.evidence["ratio"] / 100, abs=1e-4)
    assert 0.9 <= outcome.score < 1.0


def test_distant_text_fails_with_its_ratio_and_the_threshold(make_check: Make) -> None:
    outcome = make_check(LITERAL)({"output": "Buy now, prices only go up."})
    assert outcome.status == "fail"
    assert outcome.reason.startswith("output is only ")
    assert outcome.reason.endswith("% similar to the reference (needs 90%)")
    assert outcome.score is not None and outcome.score < 0.9
    assert outcome.evidence["min_ratio"] == 90


def test_token_set_ratio_ignores_word_order(make_check: Make) -> None:
    text = {"output": "advice financial not is This"}
    assert make_check(LITERAL)(text).status == "fail"
    by_tokens = make_check(
        {**LITERAL, "method": "token_set_ratio", "reference": "This is not financial advice"}
    )
    assert by_tokens(text).status == "pass"


def test_reference_field_is_read_from_the_case(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "similar",
            "field": "output",
            "reference_field": "expected.answer",
            "min_ratio": 80,
        }
    )
    outcome = check(
        {"output": "Paris is the capital", "expected": {"answer": "Paris is the capital."}}
    )
    assert outcome.status == "pass"
    assert "similar to expected.answer" in outcome.reason


def test_missing_reference_field_fails_and_a_non_text_one_is_an_error(make_check: Make) -> None:
    check = make_check(
        {"rubric": "similar", "field": "output", "reference_field": "expected.answer"}
    )
    outcome = check({"output": "x"})
    assert (outcome.status, outcome.reason) == ("fail", "field expected.answer is missing")
    wrong = check({"output": "x", "expected": {"answer": 4}})
    assert (wrong.status, wrong.reason) == (
        "error",
        "not checked: expected.answer is an integer, not text",
    )


def test_non_text_and_missing_fields_fail(make_check: Make) -> None:
    check = make_check(LITERAL)
    assert check({"output": {"a": 1}}).reason == "output is an object, not text"
    assert check({}).reason == "field output is missing"


def test_wildcard_score_is_the_lowest(make_check: Make) -> None:
    check = make_check({**LITERAL, "field": "items.*", "min_ratio": 50})
    outcome = check({"items": [DISCLAIMER, "This is not legal advice."]})
    assert outcome.status == "pass"
    assert outcome.score is not None and outcome.score < 1.0


def test_empty_strings_are_identical(make_check: Make) -> None:
    assert make_check({**LITERAL, "reference": ""})({"output": ""}).status == "pass"


@pytest.mark.parametrize(
    "spec",
    [
        {"rubric": "similar", "field": "output"},
        {**LITERAL, "reference_field": "expected"},
        {"rubric": "similar", "field": "output", "reference_field": "expected.*"},
        {**LITERAL, "min_ratio": 120},
        {**LITERAL, "method": "jaccard"},
    ],
)
def test_bad_specs_are_rejected(make_claim: Make, spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim(spec)


# min_ratio is 0-100; (0, 1] is refused as a fraction written by mistake.
@given(
    st.text(max_size=30),
    st.text(max_size=30),
    st.one_of(st.just(0.0), st.floats(1, 100, exclude_min=True)),
)
def test_pass_agrees_with_score_and_threshold(
    make_check: Make, a: str, b: str, threshold: float
) -> None:
    outcome = make_check({**LITERAL, "reference": b, "min_ratio": threshold})({"output": a})
    ratio = fuzz.ratio(a, b)
    assert outcome.score == pytest.approx(ratio / 100)
    assert (outcome.status == "pass") == (ratio >= threshold)
