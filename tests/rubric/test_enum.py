from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

Make = Callable[..., Any]
INDUSTRY = {"rubric": "enum", "field": "fields.industry", "values": ["saas", "fintech", "health"]}


def test_listed_value_passes(make_check: Make) -> None:
    assert make_check(INDUSTRY)({"fields": {"industry": "fintech"}}).status == "pass"


def test_unlisted_value_fails_with_value_and_allowed_values(make_check: Make) -> None:
    outcome = make_check(INDUSTRY)({"fields": {"industry": "retail"}})
    assert outcome.status == "fail"
    assert outcome.reason == (
        "fields.industry = 'retail' is not one of ['saas', 'fintech', 'health']"
    )
    assert outcome.evidence["value"] == "retail"
    assert outcome.evidence["allowed"] == ["saas", "fintech", "health"]


def test_strings_compare_case_sensitively_unless_asked(make_check: Make) -> None:
    assert make_check(INDUSTRY)({"fields": {"industry": "SaaS"}}).status == "fail"
    loose = make_check({**INDUSTRY, "ignore_case": True})
    assert loose({"fields": {"industry": "SaaS"}}).status == "pass"


def test_numbers_match_across_int_and_float(make_check: Make) -> None:
    check = make_check({"rubric": "enum", "field": "n", "values": [1, 2.5]})
    assert check({"n": 1.0}).status == "pass"
    assert check({"n": 2.5}).status == "pass"
    assert check({"n": "1"}).status == "fail"


def test_booleans_are_not_numbers(make_check: Make) -> None:
    numbers = make_check({"rubric": "enum", "field": "n", "values": [0, 1]})
    assert numbers({"n": True}).status == "fail"
    flags = make_check({"rubric": "enum", "field": "n", "values": [True]})
    assert flags({"n": 1}).status == "fail"
    assert flags({"n": True}).status == "pass"


@pytest.mark.parametrize("value", [None, ["saas"], {"saas": 1}])
def test_non_scalar_values_are_never_allowed(make_check: Make, value: Any) -> None:
    outcome = make_check(INDUSTRY)({"fields": {"industry": value}})
    assert outcome.status == "fail"


def test_missing_field_fails_naming_the_path(make_check: Make) -> None:
    outcome = make_check(INDUSTRY)({"fields": {}})
    assert outcome.status == "fail"
    assert outcome.reason == "field fields.industry is missing"


def test_wildcard_reports_the_offending_element(make_check: Make) -> None:
    check = make_check({"rubric": "enum", "field": "tags.*", "values": ["a", "b"]})
    outcome = check({"tags": ["a", "z", "b"]})
    assert outcome.status == "fail"
    assert outcome.evidence["path"] == "tags.1"


def test_single_value_enum_on_llm_written_field_is_an_error(make_check: Make) -> None:
    check = make_check({"rubric": "enum", "field": "fields.industry", "values": ["saas"]})
    case = {"fields": {"industry": "saas"}, "field_meta": {"industry": {"source": "llm"}}}
    outcome = check(case)
    assert outcome.status == "error"
    assert "LLM-written" in outcome.reason and "judge" in outcome.reason


def test_single_value_enum_on_a_declared_llm_field_is_an_error(make_check: Make) -> None:
    check = make_check(
        {"rubric": "enum", "field": "fields.industry", "values": ["saas"]}, llm_fields=["fields"]
    )
    assert check({"fields": {"industry": "saas"}}).status == "error"


def test_multi_value_enum_on_llm_written_field_is_a_rubric(make_check: Make) -> None:
    case = {"fields": {"industry": "saas"}, "field_meta": {"industry": {"source": "llm"}}}
    assert make_check(INDUSTRY)(case).status == "pass"


@pytest.mark.parametrize("values", [[], [None], [["a"]], "saas"])
def test_bad_value_lists_are_rejected(make_claim: Make, values: Any) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "enum", "field": "x", "values": values})


@given(st.lists(st.text(max_size=5), min_size=1, max_size=5), st.text(max_size=5))
def test_enum_agrees_with_membership(make_check: Make, values: list[str], value: str) -> None:
    check = make_check({"rubric": "enum", "field": "x", "values": values})
    assert (check({"x": value}).status == "pass") == (value in values)
