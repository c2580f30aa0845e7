"""The PRD's single-evaluation request: its model, and reading it with every problem
named where it is (the file, the line, the key)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import orjson
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from verifier._internal.canonical import loads_exact
from verifier._internal.json_words import json_kind
from verifier.contract.rubric_claims import CLAIM_ID_PATTERN
from verifier.errors import VerifierError
from verifier.rubric._scales import SCALE_ERROR, Fraction

__all__ = [
    "Assertion",
    "EvaluateError",
    "EvaluationInput",
    "Threshold",
    "decode_text",
    "invalid_json",
    "parse_evaluation",
    "validate_evaluation",
]


class EvaluateError(VerifierError):
    """An evaluation input that cannot be used; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def _a_number(value: Any) -> Any:
    # Lax validation would read true as 1.0 and "0.5" as 0.5: a request that wrote
    # either meant something else.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number from 0 to 1, not {json_kind(value)}")
    return value


Threshold = Annotated[Fraction, Field(allow_inf_nan=False), BeforeValidator(_a_number)]
"""The score (0-1) an evaluation must reach: a JSON number, never a boolean or text."""


class Assertion(BaseModel):
    """One atomic behaviour the output must show, with the questions that decide it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=CLAIM_ID_PATTERN)
    instruction: str = Field(min_length=1)
    criteria: tuple[Annotated[str, Field(min_length=1)], ...] = ()


class EvaluationInput(BaseModel):
    """A single-evaluation request: an agent's input and output, and the assertions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent_input: Any
    agent_output: Any
    assertions: tuple[Assertion, ...] = Field(min_length=1)
    threshold: Threshold = Field(
        default=1.0,
        description="The evaluation passes when its score (0-1) is at least this and no "
        "assertion is an error.",
    )

    @field_validator("assertions")
    @classmethod
    def _unique_ids(cls, value: tuple[Assertion, ...]) -> tuple[Assertion, ...]:
        first: dict[str, int] = {}
        for index, assertion in enumerate(value):
            if assertion.id in first:
                raise ValueError(
                    f"duplicate id {assertion.id!r} (assertions[{first[assertion.id]}] "
                    f"and assertions[{index}])"
                )
            first[assertion.id] = index
        return value


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for step in loc:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def _problem(label: str, error: Mapping[str, Any]) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind in ("missing", "extra_forbidden"):
        parent, key = _where(loc[:-1]), str(loc[-1])
        prefix = f"{label}: {parent}: " if parent else f"{label}: "
        if kind == "missing":
            return f"{prefix}missing {key!r}"
        # Only the keys of the level the unknown key is at: a top-level 'id' is not a
        # typo of an assertion's 'id'.
        names = list((Assertion if loc[:-1] else EvaluationInput).model_fields)
        close = difflib.get_close_matches(key, names, n=1)
        return f"{prefix}unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
    if kind == "string_pattern_mismatch" and loc[-1:] == ("id",):
        return (
            f"{label}: {_where(loc)}: {error.get('input')!r} is not a valid id "
            "(letters, digits, '_', '.' and '-', starting with a letter or digit)"
        )
    if kind == "too_short":
        least = error.get("ctx", {}).get("min_length", 1)
        return f"{label}: {_where(loc)}: must have at least {least} item{'s' * (least != 1)}"
    message = str(error["msg"]).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    value = error.get("input")
    # A value error or scale error names the value already.
    if kind not in ("value_error", SCALE_ERROR) and isinstance(value, (str, int, float, bool)):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
        message += f" (got {shown})"
    return f"{label}: {_where(loc) or 'input'}: {message}"


def _symptom(error: Mapping[str, Any], errors: Sequence[Mapping[str, Any]]) -> bool:
    """A list too short only because its items failed: those failures say why."""
    loc = tuple(error["loc"])
    return error["type"] == "too_short" and any(
        len(other["loc"]) > len(loc) and tuple(other["loc"][: len(loc)]) == loc for other in errors
    )


def parse_evaluation(raw: bytes, label: str) -> EvaluationInput:
    """Decodes and validates a single-evaluation document.

    Args:
        raw: The document's bytes.
        label: How to name the source in errors (the path, or ``stdin``).

    Raises:
        EvaluateError: Every problem found, each naming where it is.
    """
    text = decode_text(raw, label)
    try:
        data = loads_exact(text)
    except orjson.JSONDecodeError as exc:
        raise EvaluateError([invalid_json(label, exc)]) from None
    return validate_evaluation(data, label)


def decode_text(raw: bytes, label: str) -> str:
    """``raw`` as text: UTF-8 (a byte-order mark allowed), not blank.

    Raises:
        EvaluateError: The bytes are not UTF-8, or hold only white space.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EvaluateError([f"{label}: not UTF-8 text (byte {exc.start})"]) from None
    if not text.strip():
        raise EvaluateError([f"{label}: empty input; expected a JSON object"])
    return text


def invalid_json(label: str, exc: orjson.JSONDecodeError) -> str:
    """The one-line error of a document that is not JSON."""
    return f"{label}: line {exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})"


def validate_evaluation(data: Any, label: str) -> EvaluationInput:
    """Validates one decoded evaluation request.

    Raises:
        EvaluateError: Every problem found, each naming where it is under ``label``.
    """
    if not isinstance(data, dict):
        raise EvaluateError(
            [f"{label}: an evaluation must be a JSON object, not {json_kind(data)}"]
        )
    try:
        return EvaluationInput.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        raise EvaluateError(
            [_problem(label, e) for e in errors if not _symptom(e, errors)]
        ) from None
