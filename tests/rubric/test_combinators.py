from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

Make = Callable[..., Any]
HAS_SOURCE = {"rubric": "regex", "pattern": r"\[source: [^\]]+\]"}
DECLINES = {"rubric": "contains", "values": ["I don't know"], "ignore_case": True}
BROKEN_SCHEMA_REF = {"rubric": "json_schema", "schema": {"$ref": "https://example.invalid/s.json"}}


def test_all_passes_when_every_item_passes(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "all",
            "field": "output",
            "of": [HAS_SOURCE, {"rubric": "length", "max_words": 10}],
        }
    )
    outcome = check({"output": "Yes [source: report]"})
    assert outcome.status == "pass"
    assert [item["status"] for item in outcome.evidence["items"]] == ["pass", "pass"]


def test_all_fails_naming_the_failing_item(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "all",
            "field": "output",
            "of": [{"rubric": "length", "max_words": 10}, HAS_SOURCE],
        }
    )
    outcome = check({"output": "Yes"})
    assert outcome.status == "fail"
    assert outcome.reason == "item 2 of 2 (regex) failed: pattern not found in output (3 chars)"
    assert outcome.evidence["items"][1]["reason"] == "pattern not found in output (3 chars)"


def test_all_fail_outranks_an_item_error(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "all",
            "field": "output",
            "of": [BROKEN_SCHEMA_REF, {"rubric": "length", "max_chars": 1}],
        }
    )
    assert check({"output": "{}"}).status == "fail"


def test_all_with_an_error_and_no_fail_is_an_error(make_check: Make) -> None:
    check = make_check(
        {"rubric": "all", "field": "output", "of": [BROKEN_SCHEMA_REF, {"rubric": "present"}]}
    )
    outcome = check({"output": "{}"})
    assert outcome.status == "error"
    assert outcome.reason.startswith("item 1 of 2 (json_schema) could not be checked")


def test_any_passes_on_the_first_passing_item_and_stops(make_check: Make) -> None:
    check = make_check(
        {"rubric": "any", "field": "output", "of": [HAS_SOURCE, DECLINES, BROKEN_SCHEMA_REF]}
    )
    outcome = check({"output": "I DON'T KNOW."})
    assert outcome.status == "pass"
    assert outcome.reason.startswith("item 2 of 3 (contains) passes")
    assert len(outcome.evidence["items"]) == 2


def test_any_fails_when_no_item_passes(make_check: Make) -> None:
    check = make_check({"rubric": "any", "field": "output", "of": [HAS_SOURCE, DECLINES]})
    outcome = check({"output": "Probably 42."})
    assert outcome.status == "fail"
    assert outcome.reason.startswith("none of 2 items passes")
    assert [item["status"] for item in outcome.evidence["items"]] == ["fail", "fail"]


def test_any_with_an_error_and_no_pass_is_an_error(make_check: Make) -> None:
    check = make_check({"rubric": "any", "field": "output", "of": [HAS_SOURCE, BROKEN_SCHEMA_REF]})
    assert check({"output": "{}"}).status == "error"


def test_not_inverts_pass_and_fail(make_check: Make) -> None:
    check = make_check({"rubric": "not", "field": "output", "of": [DECLINES]})
    assert check({"output": "The answer is 42"}).status == "pass"
    outcome = check({"output": "I don't know"})
    assert outcome.status == "fail"
    assert outcome.reason.startswith("negated contains passed")


def test_not_keeps_an_error_an_error(make_check: Make) -> None:
    check = make_check({"rubric": "not", "field": "output", "of": [BROKEN_SCHEMA_REF]})
    assert check({"output": "{}"}).status == "error"


def test_not_of_a_missing_field_still_fails(make_check: Make) -> None:
    check = make_check({"rubric": "not", "field": "fields.answer", "of": [DECLINES]})
    outcome = check({"output": "x"})
    assert outcome.status == "fail"
    assert "fields.answer is missing" in outcome.reason


def test_not_of_a_nested_combinator_over_missing_fields_still_fails(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "not",
            "field": "fields.answer",
            "of": [{"rubric": "any", "of": [DECLINES, HAS_SOURCE]}],
        }
    )
    assert check({}).status == "fail"


def test_field_is_inherited_only_by_items_that_name_none(
    make_check: Make, make_claim: Make
) -> None:
    spec = {
        "rubric": "all",
        "field": "output",
        "of": [HAS_SOURCE, {"rubric": "present", "field": "fields.title"}],
    }
    claim = make_claim(spec)
    assert [item.field for item in claim.of] == ["output", "fields.title"]
    check = make_check(spec)
    assert check({"output": "[source: x]", "fields": {"title": "T"}}).status == "pass"
    assert check({"output": "[source: x]", "fields": {}}).status == "fail"


def test_field_is_not_forced_on_items_without_one(make_claim: Make) -> None:
    citation = {"rubric": "citation", "spans": "quotes.*", "within": "input"}
    claim = make_claim({"rubric": "any", "field": "output", "of": [citation, HAS_SOURCE]})
    assert not hasattr(claim.of[0], "field")
    assert claim.of[1].field == "output"


def test_field_inherits_through_nested_combinators(make_check: Make) -> None:
    check = make_check(
        {
            "rubric": "all",
            "field": "output",
            "of": [{"rubric": "not", "of": [{"rubric": "contains", "values": ["TODO"]}]}],
        }
    )
    assert check({"output": "done"}).status == "pass"
    assert check({"output": "TODO"}).status == "fail"


def test_item_without_a_field_and_nothing_to_inherit_is_rejected(make_claim: Make) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "all", "of": [HAS_SOURCE]})


@pytest.mark.parametrize(
    "spec",
    [
        {"rubric": "all", "field": "output", "of": []},
        {"rubric": "not", "field": "output", "of": [HAS_SOURCE, DECLINES]},
        {"rubric": "any", "field": "output", "of": [{**HAS_SOURCE, "id": "inner"}]},
        {"rubric": "any", "field": "output", "of": [{**HAS_SOURCE, "weight": 2}]},
        {"rubric": "any", "field": "output", "of": [{"rubric": "nope"}]},
        {"rubric": "any", "field": "output", "of": [{"rubric": ["regex"]}]},
        {"rubric": "any", "field": "output", "of": ["regex"]},
        {"rubric": "any", "field": "output", "of": [{**HAS_SOURCE, "pattern": "("}]},
    ],
)
def test_bad_items_are_rejected(make_claim: Make, spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim(spec)


def test_not_with_two_items_says_it_takes_exactly_one(make_claim: Make) -> None:
    with pytest.raises(ValidationError, match="exactly one item"):
        make_claim({"rubric": "not", "field": "output", "of": [HAS_SOURCE, DECLINES]})


def test_equality_items_keep_their_llm_guard(make_check: Make) -> None:
    check = make_check(
        {"rubric": "any", "field": "fields.tool", "of": [{"rubric": "equals", "value": "crm"}]}
    )
    case = {"fields": {"tool": "crm"}, "field_meta": {"tool": {"source": "llm"}}}
    assert check(case).status == "error"


def test_input_mapping_is_not_mutated_by_inheritance(make_claim: Make) -> None:
    item = dict(HAS_SOURCE)
    make_claim({"rubric": "all", "field": "output", "of": [item]})
    assert "field" not in item
