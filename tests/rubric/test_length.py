from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

Make = Callable[..., Any]


def test_text_within_word_bounds_passes(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "min_words": 2, "max_words": 3})
    outcome = check({"output": "three short words"})
    assert outcome.status == "pass"
    assert outcome.evidence["words"] == 3


def test_too_many_words_fails_with_counts(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "max_words": 2})
    outcome = check({"output": "one two three"})
    assert outcome.status == "fail"
    assert outcome.reason == "output has 3 words, more than the maximum of 2"
    assert outcome.evidence["max_words"] == 2


def test_too_few_chars_fails(make_check: Make) -> None:
    outcome = make_check({"rubric": "length", "field": "output", "min_chars": 5})({"output": "abc"})
    assert outcome.reason == "output has 3 chars, fewer than the minimum of 5"


def test_single_counts_read_as_singular(make_check: Make) -> None:
    outcome = make_check({"rubric": "length", "field": "output", "min_words": 2})({"output": "a"})
    assert outcome.reason == "output has 1 word, fewer than the minimum of 2"


def test_words_are_whitespace_separated_tokens(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "max_words": 3})
    outcome = check({"output": "  well-known\tfacts,\n\u00a0really  "})
    assert outcome.evidence["words"] == 3
    assert outcome.status == "pass"


def test_chars_count_code_points(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "max_chars": 2})
    assert check({"output": "😀é"}).status == "pass"


def test_empty_text_has_zero_chars_and_words(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "min_chars": 0, "max_words": 0})
    outcome = check({"output": ""})
    assert outcome.status == "pass"
    assert (outcome.evidence["chars"], outcome.evidence["words"]) == (0, 0)


def test_char_and_word_bounds_combine(make_check: Make) -> None:
    check = make_check({"rubric": "length", "field": "output", "max_chars": 100, "min_words": 3})
    assert check({"output": "one two"}).reason == "output has 2 words, fewer than the minimum of 3"


def test_non_text_fails_naming_its_type(make_check: Make) -> None:
    outcome = make_check({"rubric": "length", "field": "output", "max_chars": 3})({"output": 12})
    assert outcome.reason == "output is an integer, not text"


def test_missing_field_fails_naming_the_path(make_check: Make) -> None:
    outcome = make_check({"rubric": "length", "field": "output", "max_chars": 3})({})
    assert outcome.reason == "field output is missing"


@pytest.mark.parametrize(
    "bounds",
    [
        {},
        {"min_chars": 5, "max_chars": 4},
        {"min_words": 3, "max_words": 1},
        {"max_words": -1},
        {"max_chars": 2.5},
    ],
)
def test_bad_bounds_are_rejected(make_claim: Make, bounds: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        make_claim({"rubric": "length", "field": "output", **bounds})


def test_min_above_max_message_names_the_unit(make_claim: Make) -> None:
    with pytest.raises(ValidationError, match=r"min_words \(3\) is greater than max_words \(1\)"):
        make_claim({"rubric": "length", "field": "output", "min_words": 3, "max_words": 1})


@given(st.text(max_size=80), st.integers(0, 40), st.integers(0, 20))
def test_length_agrees_with_len_and_split(
    make_check: Make, text: str, max_chars: int, max_words: int
) -> None:
    check = make_check(
        {"rubric": "length", "field": "output", "max_chars": max_chars, "max_words": max_words}
    )
    expected = len(text) <= max_chars and len(text.split()) <= max_words
    assert (check({"output": text}).status == "pass") == expected


_separators = st.sampled_from(
    [
        "",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\x0b",
        "\x0c",
        "\x1c",
        "\x1f",
        "\x85",
        "\xa0",
        "\u2003",
        "x",
        "é",
    ]
)


@given(st.lists(st.one_of(st.text(max_size=6), _separators), max_size=12).map("".join))
def test_count_words_is_the_length_of_split(text: str) -> None:
    from verifier.rubric._length import count_words

    assert count_words(text) == len(text.split())


@pytest.mark.parametrize("text", ["", " ", "a", " a", "a ", "a\x1cb", "a\x1fb\tc", "\n\na  b\r\n"])
def test_count_words_on_ascii_edges(text: str) -> None:
    from verifier.rubric._length import count_words

    assert count_words(text) == len(text.split())
