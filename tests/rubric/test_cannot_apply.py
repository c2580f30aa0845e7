"""A check that could not apply (a missing field, a value of the wrong kind, text that
does not parse) is never proof of its negation: ``not`` over it fails. ``present`` is
the one predicate for which a missing field is a verdict, so ``not: present`` passes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rubric.conftest import check_of
from verifier.fieldpath import compile_path

# Each inner predicate, on field `v`, and a value it cannot examine.
CANNOT_EXAMINE = [
    ({"rubric": "regex", "pattern": "sorry"}, ["I am sorry"]),
    ({"rubric": "regex", "pattern": "sorry"}, None),
    ({"rubric": "contains", "values": ["sorry"]}, {"text": "sorry"}),
    ({"rubric": "not_contains", "values": ["sorry"]}, 3),
    ({"rubric": "length", "max_chars": 5}, None),
    ({"rubric": "range", "min": 0, "max": 10}, "5"),
    ({"rubric": "range", "min": 0, "max": 10}, float("nan")),
    ({"rubric": "enum", "values": ["bad"]}, ["bad"]),
    ({"rubric": "enum", "values": ["bad"]}, None),
    ({"rubric": "json_schema", "schema": {"type": "object"}}, "sorry, not json"),
    ({"rubric": "similar", "reference": "sorry"}, None),
]


@pytest.mark.parametrize(("inner", "value"), CANNOT_EXAMINE, ids=repr)
def test_not_fails_when_its_item_cannot_apply(inner: dict[str, Any], value: Any) -> None:
    check = check_of({"rubric": "not", "of": [{**inner, "field": "v"}]})
    outcome = check({"v": value})
    assert outcome.status == "fail", outcome.reason
    assert outcome.reason.startswith("negated ") and "cannot apply" in outcome.reason
    assert outcome.evidence["cannot_apply"] is True
    # ... and so does a `not` of a `not`, or of `all` / `any` wrapping it.
    for wrapped in (
        {"rubric": "not", "of": [{"rubric": "not", "of": [{**inner, "field": "v"}]}]},
        {"rubric": "not", "of": [{"rubric": "all", "of": [{**inner, "field": "v"}]}]},
        {"rubric": "not", "of": [{"rubric": "any", "of": [{**inner, "field": "v"}]}]},
    ):
        assert check_of(wrapped)({"v": value}).status == "fail"
    # The field missing altogether is the same.
    assert check({}).status == "fail"


@pytest.mark.parametrize(
    ("inner", "value"),
    [
        ({"rubric": "regex", "pattern": "sorry"}, "all good"),
        ({"rubric": "contains", "values": ["sorry"]}, "all good"),
        ({"rubric": "range", "min": 0, "max": 10}, 11),
        ({"rubric": "enum", "values": ["bad"]}, "good"),
        ({"rubric": "json_schema", "schema": {"type": "object"}}, "[1]"),
        ({"rubric": "length", "max_chars": 5}, "too long a text"),
    ],
    ids=repr,
)
def test_not_passes_when_its_item_checked_and_failed(inner: dict[str, Any], value: Any) -> None:
    outcome = check_of({"rubric": "not", "of": [{**inner, "field": "v"}]})({"v": value})
    assert outcome.status == "pass", outcome.reason
    assert "cannot_apply" not in outcome.evidence


def test_any_cannot_apply_only_when_none_of_its_items_could() -> None:
    one_checked = {"rubric": "any", "field": "v", "of": [
        {"rubric": "regex", "pattern": "x"}, {"rubric": "range", "min": 0}]}  # fmt: skip
    assert check_of({"rubric": "not", "of": [one_checked]})({"v": "abc"}).status == "pass"
    assert check_of({"rubric": "not", "of": [one_checked]})({"v": None}).status == "fail"


def test_not_present_requires_a_field_to_be_absent() -> None:
    absent = check_of({"rubric": "not", "of": [{"rubric": "present", "field": "secret"}]})
    assert absent({"output": "x"}).status == "pass"
    assert absent({"secret": None}).status == "pass"
    assert absent({"secret": "s"}).status == "fail"
    present = check_of({"rubric": "present", "field": "secret"})({})
    # Still named as missing, so a misspelt path is still pointed out after the run.
    assert present.status == "fail" and present.evidence["field_missing"] is True


def test_present_through_a_wildcard_needs_the_field_on_every_item() -> None:
    check = check_of({"rubric": "present", "field": "items.*.name"})
    assert check({"items": [{"name": "a"}, {"name": "b"}]}).status == "pass"
    gap = check({"items": [{"name": "a"}, {}, {"id": 3}]})
    assert gap.status == "fail"
    assert gap.reason == "items.1.name is missing (and 1 other)"
    assert gap.evidence["missing"] == ["items.1.name", "items.2.name"]
    assert check({"items": [{"name": "a"}, {"name": None}]}).reason == "items.1.name is null"
    assert check({"items": []}).status == "fail"  # at least one must be found
    assert check({"items": ["text"]}).status == "fail"  # an item that holds no fields


def test_find_names_the_gaps_a_wildcard_leads_to() -> None:
    path = compile_path("a.*.b.c")
    gaps: list[str] = []
    case = {"a": [{"b": {"c": 1}}, {"b": {}}, {"x": 1}, 5]}
    assert path.find(case, gaps) == [("a.0.b.c", 1)]
    assert gaps == ["a.2.b", "a.3.b", "a.1.b.c"]
    gaps = []
    assert compile_path("x.*.b").find({"a": 1}, gaps) == [] and gaps == []  # before any `*`
