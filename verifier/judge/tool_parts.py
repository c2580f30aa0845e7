"""Pieces every verdict tool is built from: the object schema, shared fields, and the
base of the models that validate a tool's input."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A JSON Schema object with exactly ``properties`` (in that order), no others."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


TEXT: Final = {"type": "string"}
CLAIM_ID: Final = {"type": "string", "description": "The claim id exactly as given."}
REASONING: Final = {"type": "string", "description": "One or two sentences of grounds."}


class ToolInput(BaseModel):
    """Base of the models of a verdict tool's input.

    Extra keys are ignored: a judge adding a note harms nothing, while a missing or
    mistyped key is a malformed verdict.
    """

    # Built when a reply is first read: a run reads the replies of one or two tools.
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)
