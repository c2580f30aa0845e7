"""Keys on a fixed scale: percentages (0-100) and fractions (0-1).

A similarity threshold written as a fraction on a percent key (``min_ratio: 0.8``)
passes nearly any text, and a pass threshold written as a percentage on a fraction key
(``threshold: 80``) fails every case; both are silent wrong answers. So a value that
only makes sense on the other scale is refused, naming the key and the value meant.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo
from pydantic_core import PydanticCustomError

SCALE_ERROR = "scale"
"""The pydantic error type of a value on the wrong scale."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: float) -> str:
    return f"{round(value, 6):g}"


def _percent(value: Any, info: ValidationInfo) -> Any:
    if _number(value) and 0 < value <= 1:
        raise PydanticCustomError(
            SCALE_ERROR,
            "{key} is on a 0-100 scale; {value} would pass almost anything — did you mean {meant}?",
            {"key": info.field_name or "this key", "value": value, "meant": _shown(value * 100)},
        )
    return value


def _fraction(value: Any, info: ValidationInfo) -> Any:
    if _number(value) and 1 < value <= 100:
        # 80 is a percentage meant as 0.8; 1.5 is no percentage anyone means.
        meant = f" — did you mean {_shown(value / 100)}?" if value >= 10 else ""
        raise PydanticCustomError(
            SCALE_ERROR,
            "{key} is on a 0-1 scale; {value} is above 1{meant}",
            {"key": info.field_name or "this key", "value": value, "meant": meant},
        )
    return value


Percent = Annotated[float, Field(ge=0, le=100), BeforeValidator(_percent)]
"""A percentage, 0-100 like rapidfuzz's ratios; a value in (0, 1] is refused as a
fraction written by mistake (0 itself, "accept anything", stays allowed)."""

FRACTION_CHECK = BeforeValidator(_fraction)
"""The refusal of a percentage on a fraction key, for fractions with bounds of their own."""

Fraction = Annotated[float, Field(ge=0, le=1), FRACTION_CHECK]
"""A fraction, 0-1; a value in (1, 100] is refused as a percentage written by mistake."""
