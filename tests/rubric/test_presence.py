from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

Make = Callable[..., Any]
SUMMARY = {"rubric": "present", "field": "fields.summary"}


@pytest.mark.parametrize("value", ["text", 0, False, 0.0, ["x"], {"k": None}, [None]])
def test_values_that_hold_something_are_present(make_check: Make, value: Any) -> None:
    assert make_check(SUMMARY)({"fields": {"summary": value}}).status == "pass"


@pytest.mark.parametrize(
    ("value", "how"),
    [
        (None, "null"),
        ("", "an empty string"),
        (" \n\t", "blank (whitespace only)"),
        ([], "an empty list"),
        ({}, "an empty object"),
    ],
)
def test_empty_values_fail_saying_how(make_check: Make, value: Any, how: str) -> None:
    outcome = make_check(SUMMARY)({"fields": {"summary": value}})
    assert outcome.status == "fail"
    assert outcome.reason == f"fields.summary is {how}"


def test_missing_field_fails_naming_the_path(make_check: Make) -> None:
    outcome = make_check(SUMMARY)({"fields": {"title": "x"}})
    assert outcome.status == "fail"
    assert outcome.reason == "field fields.summary is missing"


def test_wildcard_requires_every_value_and_at_least_one(make_check: Make) -> None:
    check = make_check({"rubric": "present", "field": "items.*.title"})
    assert check({"items": [{"title": "a"}, {"title": "b"}]}).status == "pass"
    blank = check({"items": [{"title": "a"}, {"title": ""}]})
    assert (blank.status, blank.evidence["path"]) == ("fail", "items.1.title")
    assert check({"items": []}).reason == "no value found at items.*.title"


def test_unknown_keys_are_rejected(make_claim: Make) -> None:
    with pytest.raises(ValidationError):
        make_claim({**SUMMARY, "allow_empty": True})
