from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.fieldpath import compile_path
from verifier.rubric._base import (
    Outcome,
    clip,
    fold_case,
    for_each_value,
    llm_written,
    original_span,
    passed,
    plural,
)

LLM = {"field_meta": {"summary": {"source": "llm"}, "id": {"source": "crm"}}}


@pytest.mark.parametrize(
    ("path", "written"),
    [
        ("summary", True),
        ("fields.summary", True),
        ("output.fields.summary", True),
        ("fields.summary_long", False),
        ("fields.id", False),
        ("summary.text", False),
        ("fields.other", False),
    ],
)
def test_llm_written_matches_field_meta_keys_by_name(path: str, written: bool) -> None:
    assert llm_written(LLM, path) is written


@pytest.mark.parametrize(
    "case",
    [{}, {"field_meta": None}, {"field_meta": ["summary"]}, {"field_meta": {"summary": "llm"}}],
)
def test_llm_written_is_false_without_usable_field_meta(case: dict[str, Any]) -> None:
    assert not llm_written(case, "summary")


def test_fold_case_maps_expanded_characters_back() -> None:
    folded, index = fold_case("Maß X")
    assert folded == "mass x"
    assert index is not None
    start = folded.index("x")
    assert original_span(index, start, start + 1) == (4, 5)


def test_fold_case_needs_no_map_when_lengths_agree() -> None:
    assert fold_case("ABC") == ("abc", None)
    assert original_span(None, 1, 2) == (1, 2)


@given(st.text(max_size=40))
def test_fold_case_agrees_with_str_casefold(text: str) -> None:
    folded, index = fold_case(text)
    assert folded == text.casefold()
    if index is not None:
        assert len(index) == len(folded)
        assert index == sorted(index)


def test_clip_keeps_scalars_and_short_text_and_shortens_the_rest() -> None:
    assert clip(3) == 3 and clip(None) is None and clip("abc") == "abc"
    assert clip("x" * 300) == "x" * 199 + "…"
    assert len(clip({"k": "v" * 500}, 50)) == 50


def test_plural() -> None:
    assert (plural(1, "word"), plural(0, "word"), plural(2, "word")) == (
        "1 word",
        "0 words",
        "2 words",
    )


def test_for_each_value_keeps_the_lowest_graded_score_over_a_wildcard() -> None:
    def graded(where: str, value: Any) -> Outcome:
        return passed(f"{where} ok", {"path": where}, score=value)

    outcome = for_each_value(compile_path("s.*"), {"s": [0.9, 0.7, 0.95]}, graded)
    assert outcome.status == "pass"
    assert outcome.score == 0.7
    assert outcome.evidence["count"] == 3


def test_for_each_value_marks_missing_fields() -> None:
    outcome = for_each_value(compile_path("a.b"), {}, lambda w, v: passed("never"))
    assert outcome.evidence == {"path": "a.b", "field_missing": True, "cannot_apply": True}
    assert outcome.resolved_score == 0.0
