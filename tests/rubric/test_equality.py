from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from verifier._internal.canonical import canonical_json

Make = Callable[..., Any]
LLM_META = {"tool": {"source": "llm"}}


def test_equal_value_passes(make_check: Make) -> None:
    check = make_check({"rubric": "equals", "field": "run.tool", "value": "crm"})
    assert check({"run": {"tool": "crm"}}).status == "pass"


def test_different_value_fails_with_both_values(make_check: Make) -> None:
    check = make_check({"rubric": "equals", "field": "run.tool", "value": "crm"})
    outcome = check({"run": {"tool": "search"}})
    assert outcome.status == "fail"
    assert outcome.reason == "run.tool = 'search' does not equal 'crm'"
    assert (outcome.evidence["expected"], outcome.evidence["actual"]) == ("crm", "search")


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        (1, 1.0, True),
        ({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}, True),
        (True, 1, False),
        ({"a": True}, {"a": 1}, False),
        ([1, 2], [2, 1], False),
        (None, None, True),
        ("1", 1, False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
)
def test_equality_is_json_equality(
    make_check: Make, expected: Any, actual: Any, same: bool
) -> None:
    check = make_check({"rubric": "equals", "field": "x", "value": expected})
    assert (check({"x": actual}).status == "pass") is same


def test_null_is_a_valid_expected_value_but_missing_is_not_null(make_check: Make) -> None:
    check = make_check({"rubric": "equals", "field": "x", "value": None})
    assert check({"x": None}).status == "pass"
    assert check({}).reason == "field x is missing"


def test_value_is_required(make_claim: Make) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "equals", "field": "x"})


@pytest.mark.parametrize("rubric", ["equals", "sha256"])
def test_field_marked_llm_in_field_meta_is_an_error(make_check: Make, rubric: str) -> None:
    value = "crm" if rubric == "equals" else hashlib.sha256(b"crm").hexdigest()
    check = make_check({"rubric": rubric, "field": "fields.tool", "value": value})
    outcome = check({"fields": {"tool": "crm"}, "field_meta": LLM_META})
    assert outcome.status == "error"
    assert "fields.tool" in outcome.reason and "source: llm" in outcome.reason
    assert "judge" in outcome.reason


def test_field_meta_from_another_source_is_fine(make_check: Make) -> None:
    check = make_check({"rubric": "equals", "field": "fields.tool", "value": "crm"})
    case = {"fields": {"tool": "crm"}, "field_meta": {"tool": {"source": "tool"}, "x": "junk"}}
    assert check(case).status == "pass"


def test_declared_llm_fields_are_an_error_for_every_case(make_check: Make) -> None:
    check = make_check({"rubric": "equals", "field": "output", "value": "x"}, llm_fields=["output"])
    outcome = check({"output": "x"})
    assert outcome.status == "error"
    assert "llm_fields lists output" in outcome.reason


def test_sha256_of_text_hashes_its_utf8(make_check: Make) -> None:
    text = "héllo 😀"
    check = make_check(
        {"rubric": "sha256", "field": "input", "value": hashlib.sha256(text.encode()).hexdigest()}
    )
    assert check({"input": text}).status == "pass"
    outcome = check({"input": text + "!"})
    assert outcome.status == "fail"
    assert outcome.evidence["actual"] == hashlib.sha256((text + "!").encode()).hexdigest()


def test_sha256_of_an_object_hashes_canonical_json(make_check: Make) -> None:
    value = {"b": [1, 2], "a": "x"}
    digest = hashlib.sha256(canonical_json(value)).hexdigest()
    check = make_check({"rubric": "sha256", "field": "input", "value": digest})
    assert check({"input": {"a": "x", "b": [1, 2]}}).status == "pass"


@pytest.mark.parametrize("value", ["ABC", "A" * 64, "g" * 64, "a" * 63])
def test_sha256_value_must_be_64_lowercase_hex(make_claim: Make, value: str) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "sha256", "field": "x", "value": value})


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(_json)
def test_every_json_value_equals_itself_and_matches_its_own_hash(
    make_check: Make, value: Any
) -> None:
    assert (
        make_check({"rubric": "equals", "field": "x", "value": value})({"x": value}).status
        == "pass"
    )
    data = value.encode() if isinstance(value, str) else canonical_json(value)
    digest = hashlib.sha256(data).hexdigest()
    assert (
        make_check({"rubric": "sha256", "field": "x", "value": digest})({"x": value}).status
        == "pass"
    )
