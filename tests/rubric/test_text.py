from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

Make = Callable[..., Any]


def test_contains_all_passes_with_offsets_of_every_value(make_check: Make) -> None:
    check = make_check({"rubric": "contains", "field": "output", "values": ["Acme", "2024"]})
    outcome = check({"output": "Acme grew in 2024"})
    assert outcome.status == "pass"
    assert outcome.evidence["found"] == [
        {"value": "Acme", "start": 0, "end": 4},
        {"value": "2024", "start": 13, "end": 17},
    ]
    assert outcome.evidence["missing"] == []


def test_contains_all_fails_listing_the_missing_values(make_check: Make) -> None:
    check = make_check({"rubric": "contains", "field": "output", "values": ["Acme", "2024", "EU"]})
    outcome = check({"output": "Acme grew"})
    assert outcome.status == "fail"
    assert outcome.reason == "output lacks '2024', 'EU' (2 of 3 required values missing)"
    assert outcome.evidence["missing"] == ["2024", "EU"]


def test_contains_any_passes_on_one_value_and_fails_on_none(make_check: Make) -> None:
    check = make_check(
        {"rubric": "contains", "field": "output", "values": ["yes", "no"], "mode": "any"}
    )
    assert check({"output": "the answer is no"}).status == "pass"
    outcome = check({"output": "maybe"})
    assert outcome.status == "fail"
    assert outcome.reason == "output contains none of 'yes', 'no'"


def test_contains_is_case_sensitive_unless_asked(make_check: Make) -> None:
    strict = make_check({"rubric": "contains", "field": "output", "values": ["ACME"]})
    loose = make_check(
        {"rubric": "contains", "field": "output", "values": ["ACME"], "ignore_case": True}
    )
    assert strict({"output": "acme"}).status == "fail"
    assert loose({"output": "acme"}).status == "pass"


def test_ignore_case_uses_full_case_folding_and_original_offsets(make_check: Make) -> None:
    check = make_check(
        {"rubric": "contains", "field": "output", "values": ["STRASSE", "bar"], "ignore_case": True}
    )
    text = "Große Straße bar"
    outcome = check({"output": text})
    assert outcome.status == "pass"
    street, bar = outcome.evidence["found"]
    assert text[street["start"] : street["end"]] == "Straße"
    assert text[bar["start"] : bar["end"]] == "bar"


def test_offsets_count_code_points(make_check: Make) -> None:
    check = make_check({"rubric": "contains", "field": "output", "values": ["ok"]})
    outcome = check({"output": "😀é ok"})
    assert outcome.evidence["found"] == [{"value": "ok", "start": 3, "end": 5}]


def test_not_contains_fails_on_any_banned_value_by_default(make_check: Make) -> None:
    check = make_check({"rubric": "not_contains", "field": "output", "values": ["TODO", "FIXME"]})
    assert check({"output": "all done"}).status == "pass"
    outcome = check({"output": "done, TODO: tests"})
    assert outcome.status == "fail"
    assert (
        outcome.reason == "output contains banned value 'TODO' at 6-10 (1 of 2 banned values found)"
    )
    assert outcome.evidence["found"] == [{"value": "TODO", "start": 6, "end": 10}]


def test_not_contains_any_fails_only_when_every_value_occurs(make_check: Make) -> None:
    check = make_check(
        {"rubric": "not_contains", "field": "output", "values": ["a", "b"], "mode": "any"}
    )
    assert check({"output": "a only"}).status == "pass"
    assert check({"output": "a and b"}).status == "fail"


def test_not_contains_ignore_case(make_check: Make) -> None:
    check = make_check(
        {"rubric": "not_contains", "field": "output", "values": ["as an ai"], "ignore_case": True}
    )
    assert check({"output": "As An AI, I cannot"}).status == "fail"


@pytest.mark.parametrize("rubric", ["contains", "not_contains"])
def test_missing_field_fails_naming_the_path(make_check: Make, rubric: str) -> None:
    outcome = make_check({"rubric": rubric, "field": "fields.text", "values": ["x"]})({})
    assert outcome.status == "fail"
    assert outcome.reason == "field fields.text is missing"


@pytest.mark.parametrize("rubric", ["contains", "not_contains"])
def test_non_text_fails_naming_its_type(make_check: Make, rubric: str) -> None:
    outcome = make_check({"rubric": rubric, "field": "output", "values": ["x"]})({"output": ["x"]})
    assert outcome.status == "fail"
    assert outcome.reason == "output is an array, not text"


def test_wildcard_checks_every_value(make_check: Make) -> None:
    check = make_check({"rubric": "contains", "field": "items.*", "values": ["id:"]})
    assert check({"items": ["id: 1", "id: 2"]}).status == "pass"
    outcome = check({"items": ["id: 1", "two"]})
    assert outcome.status == "fail"
    assert outcome.evidence["path"] == "items.1"


def test_empty_text_contains_nothing(make_check: Make) -> None:
    check = make_check({"rubric": "contains", "field": "output", "values": ["a"]})
    assert check({"output": ""}).status == "fail"


@pytest.mark.parametrize(
    "spec",
    [
        {"values": []},
        {"values": [""]},
        {"values": ["a"], "mode": "some"},
        {"values": ["a"], "typo": 1},
        {"values": "a"},
    ],
)
def test_bad_specs_are_rejected(make_claim: Make, spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "contains", "field": "output", **spec})


@given(st.text(max_size=60), st.data())
def test_contains_a_random_substring_always_passes(make_check: Make, text: str, data: Any) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    needle = text[start:end] or "x"
    haystack = text if text[start:end] else text + "x"
    ignore_case = data.draw(st.booleans())
    check = make_check(
        {"rubric": "contains", "field": "output", "values": [needle], "ignore_case": ignore_case}
    )
    outcome = check({"output": haystack})
    assert outcome.status == "pass"
    banned = make_check(
        {
            "rubric": "not_contains",
            "field": "output",
            "values": [needle],
            "ignore_case": ignore_case,
        }
    )
    assert banned({"output": haystack}).status == "fail"


@given(st.text(max_size=40), st.text(min_size=1, max_size=5))
def test_found_offsets_point_at_the_value(make_check: Make, text: str, value: str) -> None:
    check = make_check({"rubric": "contains", "field": "output", "values": [value]})
    outcome = check({"output": text})
    assert (outcome.status == "pass") == (value in text)
    for hit in outcome.evidence["found"]:
        assert text[hit["start"] : hit["end"]] == value
