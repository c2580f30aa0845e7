"""``range``: a number within inclusive bounds."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    cannot_apply,
    clip,
    each_value,
    failed,
    field_path,
    passed,
    wrong_kind,
)


class RangeSpec(PredicateSpec):
    """Requires a numeric field to lie within ``[min, max]``."""

    rubric: Literal["range"]
    field: PathText = Field(description="Path of the numeric field checked.")
    min: int | float | None = Field(default=None, description="Lowest allowed value (inclusive).")
    max: int | float | None = Field(default=None, description="Highest allowed value (inclusive).")

    @field_validator("min", "max", mode="before")
    @classmethod
    def _real_number(cls, value: Any) -> Any:
        # pydantic would read `true` as 1 and '3' as 3; in a contract both are mistakes.
        if isinstance(value, bool) or not isinstance(value, (int, float, type(None))):
            raise ValueError(f"a bound must be a number, not {type(value).__name__}")
        if isinstance(value, float) and math.isnan(value):
            raise ValueError("a bound must be a number, not NaN")
        return value

    @model_validator(mode="after")
    def _bounds(self) -> RangeSpec:
        if self.min is None and self.max is None:
            raise ValueError("range needs `min`, `max` or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"range min ({self.min}) is greater than max ({self.max})")
        return self


def _prepare(spec: RangeSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    low = spec.min
    high = spec.max
    bounds = {"min": low, "max": high}
    shown = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"

    def check_value(where: str, value: Any) -> Outcome:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return wrong_kind(
                where, value, "a number", {"path": where, "value": clip(value), **bounds}
            )
        evidence = {"path": where, "value": value, **bounds}
        if value != value:  # NaN compares false with everything, so it would slip through
            return cannot_apply(f"{where} is NaN, not a number in {shown}", evidence)
        if low is not None and value < low:
            return failed(f"{where} = {value} is below the minimum {low}", evidence)
        if high is not None and value > high:
            return failed(f"{where} = {value} is above the maximum {high}", evidence)
        return passed(f"{where} = {value} lies within {shown}", evidence)

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="range",
        spec=RangeSpec,
        prepare=_prepare,
        doc=(
            "Passes when the field is a number within `min` and `max` (both inclusive; give "
            "one or both). Booleans and numbers written as strings are not numbers here, so "
            "they fail with their type named, as does NaN. Evidence: the value and the bounds."
        ),
        example={
            "id": "confidence_is_probability",
            "rubric": "range",
            "field": "fields.confidence",
            "min": 0,
            "max": 1,
        },
    ),
)
