"""``regex``: a pattern searched for in a text field, with RE2 (linear time)."""

from __future__ import annotations

from typing import Any, Literal

import re2
from pydantic import Field, field_validator

from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    clip,
    each_value,
    failed,
    field_path,
    passed,
    wrong_kind,
)

_FLAGS = {"i": "case_sensitive", "s": "dot_nl", "m": "multiline"}
_SNIPPET = 80


class RegexSpec(PredicateSpec):
    """Searches a text field for a pattern (RE2 syntax: no backreferences or lookaround)."""

    rubric: Literal["regex"]
    field: PathText = Field(description="Path of the text field searched.")
    pattern: str = Field(min_length=1, description="RE2 pattern, searched (not full-matched).")
    flags: str = Field(default="", pattern=r"^[ism]*$", description="Any of i (ignore case), s, m.")
    negate: bool = Field(default=False, description="Pass when the pattern is NOT found.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        compile_pattern(pattern, "")
        return pattern


def compile_pattern(pattern: str, flags: str) -> Any:
    """Compiles with RE2, raising ``ValueError`` with RE2's reason when it cannot."""
    options = re2.Options()
    options.log_errors = False
    if "i" in flags:
        options.case_sensitive = False
    if "s" in flags:
        options.dot_nl = True
    try:
        return re2.compile("(?m)" + pattern if "m" in flags else pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise ValueError(f"invalid regex {_as_written(pattern)}: {detail} (RE2 syntax)") from None


def _as_written(pattern: str) -> str:
    """The pattern quoted as the contract spells it: backslashes stay single (``repr``
    would double them), only characters that cannot be shown on one line are escaped."""
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in pattern)
    return f"'{shown}'"


def _snippet(text: str, start: int, end: int) -> str:
    return text[start:end] if end - start <= _SNIPPET else text[start : start + _SNIPPET] + "…"


def _prepare(spec: RegexSpec, ctx: PrepareContext) -> Check:
    compiled = compile_pattern(spec.pattern, spec.flags)
    path = field_path(spec.field)
    negate = spec.negate
    search = compiled.search

    def check_value(where: str, value: Any) -> Outcome:
        if not isinstance(value, str):
            return wrong_kind(where, value, "text", {"path": where, "value": clip(value)})
        # Searching UTF-8 bytes skips the wrapper's mapping of every byte offset back to
        # characters (about two thirds of a search on a str); the few offsets a match
        # reports are mapped back below, and only for non-ASCII text.
        encoded = value.encode()
        match = search(encoded)
        if match is None:
            if negate:
                return passed(f"pattern absent from {where} as required", {"path": where})
            return failed(
                f"pattern not found in {where} ({len(value)} chars)",
                {"path": where, "pattern": spec.pattern, "length": len(value)},
            )
        start, end = match.span()
        if not value.isascii():  # RE2 matches whole UTF-8 sequences, so these decode
            before = len(encoded[:start].decode())
            start, end = before, before + len(encoded[start:end].decode())
        evidence = {"path": where, "span": _snippet(value, start, end), "start": start, "end": end}
        if negate:
            return failed(f"forbidden pattern found in {where} at {start}-{end}", evidence)
        return passed(f"pattern found in {where} at {start}-{end}", evidence)

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="regex",
        spec=RegexSpec,
        prepare=_prepare,
        doc=(
            "Searches the field for the pattern with RE2, whose matching time is linear in the "
            "text, so no pattern can hang a run. Passes when a match is found (or, with "
            "`negate: true`, when none is). RE2 has no backreferences or lookaround, and its "
            "`\\w`, `\\d` and `\\b` are ASCII only: write `\\pL` for any letter (`ü` "
            "included). Evidence: the matched span and its offsets."
        ),
        example={
            "id": "cites_sources",
            "rubric": "regex",
            "field": "output",
            "pattern": r"\[source: [A-Za-z ]+\]",
        },
    ),
)
