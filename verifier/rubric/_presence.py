"""``present``: a field that exists and holds something."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

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
    passed,
)


class PresentSpec(PredicateSpec):
    """Requires a field to exist and be non-empty."""

    rubric: Literal["present"]
    field: PathText = Field(description="Path of the field that must be present.")


def _emptiness(value: Any) -> str | None:
    """How ``value`` is empty (for the reason), or ``None`` when it holds something."""
    if value is None:
        return "null"
    if isinstance(value, str):
        if not value:
            return "an empty string"
        if value.isspace():
            return "blank (whitespace only)"
        return None
    if isinstance(value, (list, tuple)) and not value:
        return "an empty list"
    if isinstance(value, Mapping) and not value:
        return "an empty object"
    return None  # numbers and booleans, 0 and false included, are values


def _prepare(spec: PresentSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)

    def check_value(where: str, value: Any) -> Outcome:
        empty = _emptiness(value)
        if empty is not None:
            return failed(f"{where} is {empty}", {"path": where})
        return passed(f"{where} is present", {"path": where})

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="present",
        spec=PresentSpec,
        prepare=_prepare,
        doc=(
            "Passes when the field exists and holds something: not null, not an empty or "
            "whitespace-only string, not an empty list or object (`0` and `false` count as "
            "present). With `*` in the path, every value found must be present and at least "
            "one must be found. Evidence: the path."
        ),
        example={"id": "has_summary", "rubric": "present", "field": "fields.summary"},
    ),
)
