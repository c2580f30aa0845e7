"""``enum``: a field whose value must be one of a closed set."""

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
    clip,
    describe,
    each_value,
    failed,
    field_path,
    for_each_value,
    passed,
    wrong_kind,
)
from verifier.rubric._equality import llm_guard

Scalar = bool | int | float | str


class EnumSpec(PredicateSpec):
    """Requires a field to hold one of the listed values."""

    rubric: Literal["enum"]
    field: PathText = Field(description="Path of the field checked.")
    values: tuple[Scalar, ...] = Field(min_length=1, description="The allowed values.")
    ignore_case: bool = Field(default=False, description="Compare strings case-folded.")


def _key(value: Any, ignore_case: bool) -> tuple[str, Any] | None:
    """A set key under JSON equality: ``1`` and ``1.0`` agree, ``true`` and ``1`` do not."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("text", value.casefold() if ignore_case else value)
    return None  # lists, objects and null are never allowed values


def _prepare(spec: EnumSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    ignore_case = spec.ignore_case
    allowed = frozenset(_key(v, ignore_case) for v in spec.values)
    listed = describe(list(spec.values), 200)
    evidence_allowed = list(spec.values)
    # One allowed value is string equality in disguise: same rule as ``equals``.
    guard = llm_guard(spec.field, ctx, "enum with one value") if len(allowed) == 1 else None

    def check_value(where: str, value: Any) -> Outcome:
        key = _key(value, ignore_case)
        if key in allowed:
            return passed(f"{where} = {describe(value)} is allowed", {"path": where})
        if key is None:  # null, a list or an object: no value an enum names
            return wrong_kind(
                where,
                value,
                f"one of {listed}",
                {"path": where, "value": clip(value), "allowed": evidence_allowed},
            )
        return failed(
            f"{where} = {describe(value)} is not one of {listed}",
            {"path": where, "value": clip(value), "allowed": evidence_allowed},
        )

    if guard is None:
        return each_value(path, check_value)

    def check_guarded(case: Mapping[str, Any]) -> Outcome:
        def check_written(where: str, value: Any) -> Outcome:
            return guard(case, where) or check_value(where, value)

        return for_each_value(path, case, check_written)

    return check_guarded


ENTRIES = (
    PredicateEntry(
        name="enum",
        spec=EnumSpec,
        prepare=_prepare,
        doc=(
            "Passes when the field's value is one of `values` (strings, numbers or booleans; "
            "`1` matches `1.0` but `true` never matches `1`). `ignore_case: true` compares "
            "strings case-folded. An enum with a single value is an equality check, so like "
            "`equals` it is refused on LLM-written fields. Evidence: the offending value and "
            "the allowed values."
        ),
        example={
            "id": "industry_known",
            "rubric": "enum",
            "field": "fields.industry",
            "values": ["saas", "fintech", "health"],
        },
    ),
)
