from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError


def test_pattern_found_passes_with_span_and_offsets(make_check: Callable[..., Any]) -> None:
    check = make_check({"rubric": "regex", "field": "output", "pattern": r"\[source: \w+\]"})
    outcome = check({"output": "Revenue rose [source: Annual] in 2024."})
    assert outcome.status == "pass"
    assert outcome.evidence["span"] == "[source: Annual]"
    assert (outcome.evidence["start"], outcome.evidence["end"]) == (13, 29)


def test_pattern_absent_fails_naming_the_field_and_length(make_check: Callable[..., Any]) -> None:
    outcome = make_check({"rubric": "regex", "field": "output", "pattern": "xyz"})(
        {"output": "abc"}
    )
    assert outcome.status == "fail"
    assert outcome.reason == "pattern not found in output (3 chars)"


def test_regex_searches_rather_than_full_matching(make_check: Callable[..., Any]) -> None:
    check = make_check({"rubric": "regex", "field": "output", "pattern": "b"})
    assert check({"output": "abc"}).status == "pass"


def test_negate_passes_when_absent_and_fails_when_found(make_check: Callable[..., Any]) -> None:
    check = make_check({"rubric": "regex", "field": "output", "pattern": "sorry", "negate": True})
    assert check({"output": "Here you go"}).status == "pass"
    found = check({"output": "I am sorry"})
    assert found.status == "fail"
    assert found.reason == "forbidden pattern found in output at 5-10"


def test_flags_change_matching(make_check: Callable[..., Any]) -> None:
    ignore = make_check({"rubric": "regex", "field": "output", "pattern": "acme", "flags": "i"})
    assert ignore({"output": "ACME"}).status == "pass"
    multiline = make_check({"rubric": "regex", "field": "output", "pattern": "^b$", "flags": "m"})
    assert multiline({"output": "a\nb\nc"}).status == "pass"
    dotall = make_check({"rubric": "regex", "field": "output", "pattern": "a.b", "flags": "s"})
    assert dotall({"output": "a\nb"}).status == "pass"


def test_offsets_count_characters_not_bytes(make_check: Callable[..., Any]) -> None:
    outcome = make_check({"rubric": "regex", "field": "output", "pattern": "abc"})(
        {"output": "é😀abc"}
    )
    assert (outcome.evidence["start"], outcome.evidence["end"]) == (2, 5)


@pytest.mark.parametrize("pattern", ["(", r"(a)\1", "(?=a)"])
def test_invalid_or_unsupported_pattern_is_a_validation_error(
    make_claim: Callable[..., Any], pattern: str
) -> None:
    with pytest.raises(ValidationError, match="RE2 syntax"):
        make_claim({"rubric": "regex", "field": "output", "pattern": pattern})


@pytest.mark.parametrize("flags", ["", "m"])
def test_invalid_pattern_is_quoted_as_the_contract_writes_it(
    make_claim: Callable[..., Any], flags: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        make_claim({"rubric": "regex", "field": "output", "pattern": "(a)\\1\n", "flags": flags})
    assert "invalid regex '(a)\\1\\n': invalid escape sequence: \\1" in str(raised.value)


def test_unknown_flag_is_rejected(make_claim: Callable[..., Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "regex", "field": "output", "pattern": "a", "flags": "x"})


def test_missing_field_fails_naming_the_path(make_check: Callable[..., Any]) -> None:
    outcome = make_check({"rubric": "regex", "field": "fields.answer", "pattern": "a"})(
        {"output": "a"}
    )
    assert outcome.status == "fail"
    assert outcome.reason == "field fields.answer is missing"


def test_non_text_value_fails_naming_its_type(make_check: Callable[..., Any]) -> None:
    outcome = make_check({"rubric": "regex", "field": "output", "pattern": "1"})({"output": 1})
    assert outcome.status == "fail"
    assert outcome.reason == "output is an integer, not text"


def test_wildcard_requires_every_value_to_match(make_check: Callable[..., Any]) -> None:
    check = make_check({"rubric": "regex", "field": "items.*.title", "pattern": "^[A-Z]"})
    assert check({"items": [{"title": "Alpha"}, {"title": "Beta"}]}).status == "pass"
    outcome = check({"items": [{"title": "Alpha"}, {"title": "beta"}]})
    assert outcome.status == "fail"
    assert "items.1.title" in outcome.reason


def test_catastrophic_pattern_finishes_quickly(make_check: Callable[..., Any]) -> None:
    check = make_check({"rubric": "regex", "field": "output", "pattern": "^(a+)+$"})
    start = time.perf_counter()
    outcome = check({"output": "a" * 40 + "!"})
    assert time.perf_counter() - start < 0.5
    assert outcome.status == "fail"


@given(st.text(max_size=40), st.text(min_size=1, max_size=8), st.text(max_size=40))
def test_a_literal_inside_the_text_is_always_found(
    make_check: Callable[..., Any], before: str, literal: str, after: str
) -> None:
    import re2

    check = make_check({"rubric": "regex", "field": "output", "pattern": re2.escape(literal)})
    assert check({"output": before + literal + after}).status == "pass"


def test_span_and_offsets_of_a_non_ascii_match_are_in_characters(
    make_check: Callable[..., Any],
) -> None:
    outcome = make_check({"rubric": "regex", "field": "output", "pattern": "ü{2}ß"})(
        {"output": "日本 Grüße, üüß!"}
    )
    assert outcome.evidence["span"] == "üüß"
    assert (outcome.evidence["start"], outcome.evidence["end"]) == (10, 13)
    assert outcome.reason == "pattern found in output at 10-13"


def test_case_insensitive_non_ascii_match_keeps_character_offsets(
    make_check: Callable[..., Any],
) -> None:
    outcome = make_check({"rubric": "regex", "field": "output", "pattern": "ÉTÉ", "flags": "i"})(
        {"output": "😀 un été"}
    )
    assert outcome.evidence["span"] == "été"
    assert (outcome.evidence["start"], outcome.evidence["end"]) == (5, 8)


@given(st.text(max_size=30), st.text(min_size=1, max_size=6), st.text(max_size=30))
def test_offsets_agree_with_python_re_on_any_text(
    make_check: Callable[..., Any], before: str, literal: str, after: str
) -> None:
    import re

    import re2

    text = before + literal + after
    check = make_check({"rubric": "regex", "field": "output", "pattern": re2.escape(literal)})
    outcome = check({"output": text})
    expected = re.search(re.escape(literal), text)
    assert expected is not None
    assert (outcome.evidence["start"], outcome.evidence["end"]) == expected.span()
    assert text[outcome.evidence["start"] : outcome.evidence["end"]] == literal
