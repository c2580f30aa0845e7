"""``length``: bounds on the characters and words of a text field."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    each_value,
    failed,
    field_path,
    passed,
    plural,
    wrong_kind,
)


class LengthSpec(PredicateSpec):
    """Bounds the length of a text field in characters, in words, or both."""

    rubric: Literal["length"]
    field: PathText = Field(description="Path of the text field measured.")
    min_chars: int | None = Field(default=None, ge=0, description="Fewest characters allowed.")
    max_chars: int | None = Field(default=None, ge=0, description="Most characters allowed.")
    min_words: int | None = Field(default=None, ge=0, description="Fewest words allowed.")
    max_words: int | None = Field(default=None, ge=0, description="Most words allowed.")

    @model_validator(mode="after")
    def _bounds(self) -> LengthSpec:
        if (self.min_chars, self.max_chars, self.min_words, self.max_words) == (None,) * 4:
            raise ValueError(
                "length needs at least one of min_chars, max_chars, min_words, max_words"
            )
        for unit in ("chars", "words"):
            low, high = getattr(self, f"min_{unit}"), getattr(self, f"max_{unit}")
            if low is not None and high is not None and low > high:
                raise ValueError(f"min_{unit} ({low}) is greater than max_{unit} ({high})")
        return self


# str.split() separates words at these ASCII characters; in the translated copy of an
# ASCII text they become spaces and every other character an "x".
_WORD_MARKS = bytes(32 if c < 128 and chr(c).isspace() else 120 for c in range(256))


def count_words(text: str) -> int:
    """``len(text.split())`` without building the list of words.

    For ASCII text (nearly all), a word is an ``x`` that starts the translated copy or
    follows a space; other text is split the ordinary way.
    """
    if not text.isascii():
        return len(text.split())
    marks = text.encode("ascii").translate(_WORD_MARKS)
    return marks.count(b" x") + marks.startswith(b"x")


def _outside(count: int, unit: str, low: int | None, high: int | None) -> str | None:
    """Why ``count`` breaks the bounds, or ``None`` when it keeps them."""
    if low is not None and count < low:
        return f"{plural(count, unit)}, fewer than the minimum of {low}"
    if high is not None and count > high:
        return f"{plural(count, unit)}, more than the maximum of {high}"
    return None


def _prepare(spec: LengthSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    min_chars, max_chars = spec.min_chars, spec.max_chars
    min_words, max_words = spec.min_words, spec.max_words
    # Counting words reads the whole text; skip it when no word bound is set.
    has_word_bounds = min_words is not None or max_words is not None
    limits = {
        k: v
        for k, v in (
            ("min_chars", min_chars),
            ("max_chars", max_chars),
            ("min_words", min_words),
            ("max_words", max_words),
        )
        if v is not None
    }

    def check_value(where: str, value: Any) -> Outcome:
        if not isinstance(value, str):
            return wrong_kind(where, value, "text", {"path": where})
        chars = len(value)
        evidence: dict[str, Any] = {"path": where, "chars": chars, **limits}
        problem = _outside(chars, "char", min_chars, max_chars)
        if has_word_bounds:
            words = count_words(value)
            evidence["words"] = words
            problem = problem or _outside(words, "word", min_words, max_words)
        if problem is not None:
            return failed(f"{where} has {problem}", evidence)
        measured = plural(chars, "char")
        if has_word_bounds:
            measured += ", " + plural(evidence["words"], "word")
        return passed(f"{where} has {measured}, within bounds", evidence)

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="length",
        spec=LengthSpec,
        prepare=_prepare,
        doc=(
            "Bounds a text field's length: `min_chars` / `max_chars` count characters (Unicode "
            "code points), `min_words` / `max_words` count whitespace-separated words; all "
            "bounds are inclusive and at least one is required. Evidence: the measured counts "
            "and the bounds."
        ),
        example={"id": "short_enough", "rubric": "length", "field": "output", "max_words": 200},
    ),
)
