from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

Make = Callable[..., Any]
PROBABILITY = {"rubric": "range", "field": "fields.confidence", "min": 0, "max": 1}


@pytest.mark.parametrize("value", [0, 0.5, 1, 1.0])
def test_values_within_inclusive_bounds_pass(make_check: Make, value: float) -> None:
    assert make_check(PROBABILITY)({"fields": {"confidence": value}}).status == "pass"


def test_value_below_min_fails_naming_path_and_bound(make_check: Make) -> None:
    outcome = make_check(PROBABILITY)({"fields": {"confidence": -0.5}})
    assert outcome.status == "fail"
    assert outcome.reason == "fields.confidence = -0.5 is below the minimum 0"
    assert outcome.evidence == {"path": "fields.confidence", "value": -0.5, "min": 0, "max": 1}


def test_value_above_max_fails(make_check: Make) -> None:
    outcome = make_check(PROBABILITY)({"fields": {"confidence": 3}})
    assert outcome.reason == "fields.confidence = 3 is above the maximum 1"


def test_one_sided_bounds(make_check: Make) -> None:
    at_least = make_check({"rubric": "range", "field": "n", "min": 10})
    assert at_least({"n": 10**30}).status == "pass"
    assert at_least({"n": 9.99}).status == "fail"
    at_most = make_check({"rubric": "range", "field": "n", "max": -1})
    assert at_most({"n": -1e300}).status == "pass"


@pytest.mark.parametrize(
    ("value", "kind"), [(True, "a boolean"), ("0.5", "a string"), (None, "null"), ([1], "an array")]
)
def test_non_numbers_fail_naming_their_type(make_check: Make, value: Any, kind: str) -> None:
    outcome = make_check(PROBABILITY)({"fields": {"confidence": value}})
    assert outcome.status == "fail"
    assert outcome.reason == f"fields.confidence is {kind}, not a number"
    assert outcome.evidence["cannot_apply"] is True  # a `not` above must not pass


def test_nan_fails_rather_than_slipping_through(make_check: Make) -> None:
    outcome = make_check(PROBABILITY)({"fields": {"confidence": math.nan}})
    assert outcome.status == "fail"
    assert "NaN" in outcome.reason


def test_missing_field_fails_naming_the_path(make_check: Make) -> None:
    outcome = make_check(PROBABILITY)({"fields": {}})
    assert outcome.reason == "field fields.confidence is missing"


def test_wildcard_requires_every_value_in_range(make_check: Make) -> None:
    check = make_check({"rubric": "range", "field": "scores.*", "min": 0, "max": 10})
    assert check({"scores": {"a": 1, "b": 10}}).status == "pass"
    outcome = check({"scores": {"a": 1, "b": 11}})
    assert outcome.evidence["path"] == "scores.b"
    assert check({"scores": {}}).reason == "no value found at scores.*"


def test_min_above_max_is_rejected_with_a_clear_message(make_claim: Make) -> None:
    with pytest.raises(ValidationError, match=r"range min \(5\) is greater than max \(1\)"):
        make_claim({"rubric": "range", "field": "n", "min": 5, "max": 1})


@pytest.mark.parametrize(
    "bounds", [{}, {"min": True}, {"max": "3"}, {"min": math.nan}, {"min": None, "max": None}]
)
def test_missing_or_non_numeric_bounds_are_rejected(
    make_claim: Make, bounds: dict[str, Any]
) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "range", "field": "n", **bounds})


def test_equal_bounds_allow_exactly_one_value(make_check: Make) -> None:
    check = make_check({"rubric": "range", "field": "n", "min": 2, "max": 2})
    assert check({"n": 2.0}).status == "pass"
    assert check({"n": 2.0001}).status == "fail"


_numbers = st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=True)


@given(_numbers, st.one_of(st.none(), _numbers), st.one_of(st.none(), _numbers))
def test_range_agrees_with_comparisons(
    make_check: Make, value: float, low: float | None, high: float | None
) -> None:
    if low is None and high is None:
        low = 0
    if low is not None and high is not None and low > high:
        low, high = high, low
    check = make_check({"rubric": "range", "field": "n", "min": low, "max": high})
    expected = (low is None or value >= low) and (high is None or value <= high)
    assert (check({"n": value}).status == "pass") == expected
