"""``present``: a field that exists and holds something."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from verifier.fieldpath import MISSING
from verifier.rubric._base import (
    CANNOT_APPLY,
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    failed,
    field_missing,
    field_path,
    passed,
    plural,
)

_GAPS_SHOWN = 20
"""Concrete paths of missing values kept in the evidence."""


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


def _absent(missing: Outcome) -> Outcome:
    """A missing field's fail as ``present`` gives it: absence is what it checks, so the
    fail is a verdict (``not: present`` passes on it), not a check that cannot apply."""
    return failed(missing.reason, {k: v for k, v in missing.evidence.items() if k != CANNOT_APPLY})


def _prepare(spec: PresentSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)

    def check_value(where: str, value: Any) -> Outcome:
        empty = _emptiness(value)
        if empty is not None:
            return failed(f"{where} is {empty}", {"path": where})
        return passed(f"{where} is present", {"path": where})

    if not path.has_wildcard:
        get = path.getter()

        def check_one(case: Mapping[str, Any]) -> Outcome:
            value = get(case)
            if value is MISSING:
                return _absent(field_missing(path, case))
            return check_value(path.text, value)

        return check_one

    def check_each(case: Mapping[str, Any]) -> Outcome:
        gaps: list[str] = []
        found = path.find(case, gaps)
        if gaps:  # every item a `*` reaches must have the field, not only those that do
            more = f" (and {plural(len(gaps) - 1, 'other')})" if len(gaps) > 1 else ""
            return failed(
                f"{gaps[0]} is missing{more}",
                {"path": gaps[0], "missing": gaps[:_GAPS_SHOWN], "count": len(gaps)},
            )
        if not found:
            return _absent(field_missing(path, case, "no value found at {}"))
        for where, value in found:
            outcome = check_value(where, value)
            if outcome.status != "pass":
                return outcome
        return passed(
            f"all {len(found)} values at {path.text} are present",
            {"path": path.text, "count": len(found)},
        )

    return check_each


ENTRIES = (
    PredicateEntry(
        name="present",
        spec=PresentSpec,
        prepare=_prepare,
        doc=(
            "Passes when the field exists and holds something: not null, not an empty or "
            "whitespace-only string, not an empty list or object (`0` and `false` count as "
            "present). With `*` in the path, every item the `*` reaches must have the "
            "rest of the path (`items.*.name` fails on an item with no `name`), every value "
            "found must be present, and at least one must be found. Negated (`not`), it "
            "passes when the field is missing. Evidence: the path, and the paths missing."
        ),
        example={"id": "has_summary", "rubric": "present", "field": "fields.summary"},
    ),
)
