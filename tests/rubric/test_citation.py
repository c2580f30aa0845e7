from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

Make = Callable[..., Any]
SPEC = {"rubric": "citation", "spans": "field_meta.*.source_span", "within": "input"}
INPUT = "Acme Corp reported revenue of $3M in 2024. Headcount grew to 40."


def _case(*spans: Any, source: Any = INPUT) -> dict[str, Any]:
    return {
        "input": source,
        "field_meta": {f"f{i}": {"source_span": s} for i, s in enumerate(spans)},
    }


def test_literal_spans_pass_with_offsets_in_within(make_check: Make) -> None:
    outcome = make_check(SPEC)(_case("revenue of $3M", "Headcount grew"))
    assert outcome.status == "pass"
    assert outcome.reason == "all 2 spans at field_meta.*.source_span are grounded in input"
    first, second = outcome.evidence["offsets"]
    assert first == {"path": "field_meta.f0.source_span", "within": "input", "start": 19, "end": 33}
    assert INPUT[second["start"] : second["end"]] == "Headcount grew"
    assert (outcome.evidence["grounded"], outcome.evidence["total"]) == (2, 2)


def test_invented_span_fails_naming_it_and_counting(make_check: Make) -> None:
    outcome = make_check(SPEC)(_case("revenue of $3M", "profit of $9M", "Acme"))
    assert outcome.status == "fail"
    assert outcome.reason == (
        "citation span at field_meta.f1.source_span is not found in input: "
        "'profit of $9M' (2 of 3 spans grounded)"
    )
    assert outcome.evidence["path"] == "field_meta.f1.source_span"
    assert outcome.evidence["span"] == "profit of $9M"


def test_no_spans_at_all_fails_rather_than_passing_vacuously(make_check: Make) -> None:
    outcome = make_check(SPEC)({"input": INPUT, "field_meta": {}})
    assert outcome.status == "fail"
    assert outcome.reason == "no citation spans found at field_meta.*.source_span"
    assert make_check(SPEC)({"input": INPUT}).status == "fail"


@pytest.mark.parametrize(
    ("span", "why"), [("", "empty"), ("   ", "empty"), (3, "an integer, not text")]
)
def test_empty_or_non_text_spans_fail(make_check: Make, span: Any, why: str) -> None:
    outcome = make_check(SPEC)(_case("Acme", span))
    assert outcome.status == "fail"
    assert f"field_meta.f1.source_span is {why}" in outcome.reason
    assert "(1 of 2 spans grounded)" in outcome.reason


def test_missing_within_fails_and_non_text_within_is_an_error(make_check: Make) -> None:
    missing = make_check(SPEC)({"field_meta": {"a": {"source_span": "x"}}})
    assert (missing.status, missing.reason) == ("fail", "field input is missing")
    wrong = make_check(SPEC)(_case("x", source={"text": "x"}))
    assert (wrong.status, wrong.reason) == ("error", "not checked: input is an object, not text")
    listed = make_check(SPEC)(_case("x", source=["x"]))
    assert (listed.status, listed.reason) == (
        "error",
        "not checked: input is an array, not text (to use each item, write input.*)",
    )


def test_case_matters_unless_ignore_case(make_check: Make) -> None:
    assert make_check(SPEC)(_case("ACME CORP")).status == "fail"
    outcome = make_check({**SPEC, "ignore_case": True})(_case("ACME CORP"))
    assert outcome.status == "pass"
    assert outcome.evidence["offsets"][0]["start"] == 0


def test_ignore_case_offsets_survive_expanding_case_folds(make_check: Make) -> None:
    source = "Die Straße ist groß und breit"
    outcome = make_check({**SPEC, "ignore_case": True})(_case("GROSS UND", source=source))
    assert outcome.status == "pass"
    hit = outcome.evidence["offsets"][0]
    assert source[hit["start"] : hit["end"]] == "groß und"


def test_folded_match_inside_an_expanding_character_maps_to_that_character(
    make_check: Make,
) -> None:
    outcome = make_check({**SPEC, "ignore_case": True})(_case("s", source="ßs"))
    assert outcome.status == "pass"
    assert outcome.evidence["offsets"][0]["start"] == 0
    assert outcome.evidence["offsets"][0]["end"] == 1


def test_offsets_count_code_points(make_check: Make) -> None:
    source = "😀 émoji first, then the fact"
    outcome = make_check(SPEC)(_case("the fact", source=source))
    hit = outcome.evidence["offsets"][0]
    assert source[hit["start"] : hit["end"]] == "the fact"


def test_min_ratio_accepts_a_near_quote_with_its_ratio(make_check: Make) -> None:
    spec = {**SPEC, "min_ratio": 90}
    assert make_check(SPEC)(_case("revenue of 3M in 2024")).status == "fail"
    outcome = make_check(spec)(_case("revenue of 3M in 2024"))
    assert outcome.status == "pass"
    hit = outcome.evidence["offsets"][0]
    assert 90 <= hit["ratio"] < 100
    assert "revenue" in INPUT[hit["start"] : hit["end"]]
    # The pass says the match was approximate, never that the span was quoted as is.
    assert outcome.reason.endswith(
        f", 1 of them only approximately (lowest ratio {hit['ratio']:g} of 100;"
        " the text may differ in a word or a figure)"
    )
    assert outcome.evidence["approximate"] == 1
    exact = make_check(spec)(_case(INPUT[:20]))
    assert "approximately" not in exact.reason and "approximate" not in exact.evidence


def test_min_ratio_still_rejects_unrelated_text(make_check: Make) -> None:
    outcome = make_check({**SPEC, "min_ratio": 90})(_case("the moon is made of cheese"))
    assert outcome.status == "fail"


def test_min_ratio_rejects_a_span_that_only_contains_the_whole_source(make_check: Make) -> None:
    outcome = make_check({**SPEC, "min_ratio": 80})(
        _case("Acme Corp, a company under investigation for fraud", source="Acme Corp")
    )
    assert outcome.status == "fail"


def test_span_path_without_wildcard_checks_one_span(make_check: Make) -> None:
    check = make_check({"rubric": "citation", "spans": "fields.quote", "within": "input"})
    assert check({"input": INPUT, "fields": {"quote": "Acme Corp"}}).status == "pass"
    listed = check({"input": INPUT, "fields": {"quote": ["Acme Corp"]}})
    assert listed.status == "fail"
    assert "an array, not text" in listed.reason


def test_within_with_wildcard_grounds_in_any_document(make_check: Make) -> None:
    check = make_check({"rubric": "citation", "spans": "quotes.*", "within": "docs.*"})
    case = {"docs": ["first document", "second one"], "quotes": ["second", "first"]}
    outcome = check(case)
    assert outcome.status == "pass"
    assert [hit["within"] for hit in outcome.evidence["offsets"]] == ["docs.1", "docs.0"]


def test_long_missing_span_is_truncated_in_evidence(make_check: Make) -> None:
    outcome = make_check(SPEC)(_case("z" * 500))
    assert len(outcome.evidence["span"]) == 80


@pytest.mark.parametrize(
    "spec",
    [
        {"rubric": "citation", "spans": "a.*"},
        {**SPEC, "min_ratio": 101},
        {**SPEC, "within": "input..text"},
        {**SPEC, "field": "output"},
    ],
)
def test_bad_specs_are_rejected(make_claim: Make, spec: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim(spec)


@given(st.text(min_size=1, max_size=80), st.data())
def test_any_substring_of_within_is_grounded(make_check: Make, source: str, data: Any) -> None:
    start = data.draw(st.integers(0, len(source) - 1))
    end = data.draw(st.integers(start + 1, len(source)))
    span = source[start:end]
    ignore_case = data.draw(st.booleans())
    check = make_check({**SPEC, "ignore_case": ignore_case})
    outcome = check(_case(span, source=source))
    if not span.strip():
        assert outcome.status == "fail"
        return
    assert outcome.status == "pass"
    hit = outcome.evidence["offsets"][0]
    located = source[hit["start"] : hit["end"]]
    # A folded match may start inside a character that folds to several (ß -> ss).
    assert span.casefold() in located.casefold() if ignore_case else located == span


def test_a_failure_names_the_texts_it_looked_in(make_check: Make) -> None:
    spec = {**SPEC, "within": "docs.*"}
    case = {**_case("profit of $9M"), "docs": ["Revenue rose.", "Costs fell."]}
    outcome = make_check(spec)(case)
    assert outcome.status == "fail"
    assert outcome.evidence["within"] == ["docs.0", "docs.1"]
    # Without min_ratio nothing near is sought (rapidfuzz is not loaded for it).
    assert "nearest" not in outcome.evidence


def test_a_failure_under_min_ratio_says_where_the_quote_came_closest(make_check: Make) -> None:
    outcome = make_check({**SPEC, "min_ratio": 95})(_case("revenue of 3 million in 2024"))
    assert outcome.status == "fail"
    near = outcome.evidence["nearest"]
    assert (near["within"], near["ratio"]) == ("input", 71.4)
    assert "revenue of $3M in 2024" in INPUT[near["start"] : near["end"]]
    # A text that shares nothing with the source has no nearest place.
    assert "nearest" not in make_check({**SPEC, "min_ratio": 95})(_case("zzzz")).evidence
