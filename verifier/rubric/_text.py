"""``contains`` and ``not_contains``: literal substrings required in, or banned from, a text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

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
    fold_case,
    original_span,
    passed,
    plural,
    wrong_kind,
)

NonEmpty = Annotated[str, Field(min_length=1)]


class _TextSpec(PredicateSpec):
    field: PathText = Field(description="Path of the text field searched.")
    values: tuple[NonEmpty, ...] = Field(min_length=1, description="Literal substrings.")
    ignore_case: bool = Field(default=False, description="Compare case-folded text.")


class ContainsSpec(_TextSpec):
    """Requires literal substrings in a text field."""

    rubric: Literal["contains"]
    mode: Literal["all", "any"] = Field(
        default="all", description="`all`: every value must occur; `any`: at least one."
    )


class NotContainsSpec(_TextSpec):
    """Bans literal substrings from a text field."""

    rubric: Literal["not_contains"]
    mode: Literal["all", "any"] = Field(
        default="all", description="`all`: every value must be absent; `any`: at least one."
    )


Locate = Callable[[str], tuple[list[dict[str, Any]], list[str]]]


def _locate(spec: _TextSpec) -> Locate:
    """Builds the per-text search: returns the values found (with offsets) and those missing."""
    ignore_case = spec.ignore_case
    needles = tuple((v, v.casefold() if ignore_case else v) for v in spec.values)

    def locate(text: str) -> tuple[list[dict[str, Any]], list[str]]:
        haystack, index = fold_case(text) if ignore_case else (text, None)
        found: list[dict[str, Any]] = []
        missing: list[str] = []
        for value, needle in needles:
            at = haystack.find(needle)
            if at < 0:
                missing.append(value)
            else:
                start, end = original_span(index, at, at + len(needle))
                found.append({"value": value, "start": start, "end": end})
        return found, missing

    return locate


def _not_text(where: str, value: Any) -> Outcome:
    return wrong_kind(where, value, "text", {"path": where})


def _quoted(values: list[str]) -> str:
    return ", ".join(repr(v) for v in values)


def _prepare_contains(spec: ContainsSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    locate = _locate(spec)
    need_all = spec.mode == "all"
    total = len(spec.values)

    def check_value(where: str, value: Any) -> Outcome:
        if not isinstance(value, str):
            return _not_text(where, value)
        found, missing = locate(value)
        evidence = {"path": where, "found": found, "missing": missing}
        if need_all and missing:
            return failed(
                f"{where} lacks {_quoted(missing)} "
                f"({len(missing)} of {plural(total, 'required value')} missing)",
                evidence,
            )
        if not found:
            return failed(f"{where} contains none of {_quoted(missing)}", evidence)
        first = found[0]
        return passed(
            f"{where} contains {len(found)} of {plural(total, 'value')}, "
            f"{first['value']!r} at {first['start']}-{first['end']}",
            evidence,
        )

    return each_value(path, check_value)


def _prepare_not_contains(spec: NotContainsSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    locate = _locate(spec)
    need_all = spec.mode == "all"
    total = len(spec.values)

    def check_value(where: str, value: Any) -> Outcome:
        if not isinstance(value, str):
            return _not_text(where, value)
        found, missing = locate(value)
        evidence = {"path": where, "found": found, "absent": missing}
        if (need_all and found) or not missing:
            first = found[0]
            return failed(
                f"{where} contains banned value {first['value']!r} at "
                f"{first['start']}-{first['end']} "
                f"({len(found)} of {plural(total, 'banned value')} found)",
                evidence,
            )
        if not found:
            return passed(f"{where} contains none of {plural(total, 'banned value')}", evidence)
        return passed(
            f"{where} lacks {_quoted(missing)} ({len(missing)} of {plural(total, 'banned value')} "
            "absent, as mode any requires)",
            evidence,
        )

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="contains",
        spec=ContainsSpec,
        prepare=_prepare_contains,
        doc=(
            "Looks for literal substrings (not patterns) in a text field. With `mode: all` "
            "(the default) every value must occur; with `mode: any` one is enough. "
            "`ignore_case: true` compares case-folded text. Evidence: each value found with "
            "its character offsets, and the values missing."
        ),
        example={
            "id": "names_the_company",
            "rubric": "contains",
            "field": "output",
            "values": ["Acme", "revenue"],
            "ignore_case": True,
        },
    ),
    PredicateEntry(
        name="not_contains",
        spec=NotContainsSpec,
        prepare=_prepare_not_contains,
        doc=(
            "Bans literal substrings from a text field. With `mode: all` (the default) every "
            "value must be absent, so any one found fails; with `mode: any` the claim fails "
            "only when all of them occur. `ignore_case: true` compares case-folded text. "
            "Evidence: each banned value found with its character offsets."
        ),
        example={
            "id": "no_placeholders",
            "rubric": "not_contains",
            "field": "output",
            "values": ["TODO", "lorem ipsum", "[citation needed]"],
            "ignore_case": True,
        },
    ),
)
