"""The tool each kind of verdict is forced through, and pydantic models of its input.

The schemas are written out by hand rather than generated from the models: they are
sent with every request and enter the cache key, so a pydantic upgrade must not be
able to change them. They are also the same for every request of a kind (claim ids
are not enumerated in them) because providers cache the tool definitions as part of
the prompt prefix. Within each object the reasoning comes before the verdict, so the
judge writes its grounds before it commits to an answer.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, StrictBool, field_validator

from verifier.judge.finding_tools import COMPLIANCE_TOOL, CRITIQUE_TOOL
from verifier.judge.tool_parts import CLAIM_ID as _ID
from verifier.judge.tool_parts import REASONING as _REASONING
from verifier.judge.tool_parts import TEXT as _TEXT
from verifier.judge.tool_parts import ToolInput as _ToolInput
from verifier.judge.tool_parts import object_schema as _object
from verifier.llm.types import ToolSpec, VerdictKind

_BINARY_SCHEMA: Final = _object(
    {
        "results": {
            "type": "array",
            "description": "One entry per assertion, in the order given.",
            "items": _object(
                {
                    "id": _ID,
                    "criteria": {
                        "type": "array",
                        "description": "One entry per criterion of the assertion, in order.",
                        "items": _object(
                            {
                                "criterion": _TEXT,
                                "reasoning": _REASONING,
                                "met": {"type": "boolean"},
                            },
                            ["criterion", "reasoning", "met"],
                        ),
                    },
                    "reasoning": _REASONING,
                    "pass": {
                        "type": "boolean",
                        "description": "True only when every criterion is met.",
                    },
                },
                ["id", "criteria", "reasoning", "pass"],
            ),
        }
    },
    ["results"],
)

_SCALE_SCHEMA: Final = _object(
    {
        "results": {
            "type": "array",
            "description": "One entry per claim, in the order given.",
            "items": _object(
                {
                    "id": _ID,
                    "reasoning": _REASONING,
                    "score": {"type": "integer", "description": "A score on the claim's scale."},
                },
                ["id", "reasoning", "score"],
            ),
        }
    },
    ["results"],
)

_PAIRWISE_SCHEMA: Final = _object(
    {
        "reasoning": _REASONING,
        "winner": {
            "type": "string",
            "enum": ["1", "2", "tie"],
            "description": "'1' for Response 1, '2' for Response 2, 'tie' when neither is better.",
        },
    },
    ["reasoning", "winner"],
)

VERDICT_TOOLS: Final[dict[VerdictKind, ToolSpec]] = {
    "binary": ToolSpec(
        name="record_assertion_results",
        description="Record whether the output meets each criterion of each assertion.",
        input_schema=_BINARY_SCHEMA,
    ),
    "scale": ToolSpec(
        name="record_scores",
        description="Record a score on its scale for each claim.",
        input_schema=_SCALE_SCHEMA,
    ),
    "pairwise": ToolSpec(
        name="record_preference",
        description="Record which of the two responses better satisfies the instruction.",
        input_schema=_PAIRWISE_SCHEMA,
    ),
    "critique": CRITIQUE_TOOL,
    "compliance": COMPLIANCE_TOOL,
}


def verdict_tool(kind: VerdictKind) -> ToolSpec:
    """The tool a judge of this kind must answer through (forced with ``tool_choice``)."""
    return VERDICT_TOOLS[kind]


class CriterionAnswer(_ToolInput):
    """The judge's answer to one criterion."""

    criterion: str
    met: StrictBool
    reasoning: str


class AssertionAnswer(_ToolInput):
    """The judge's answer to one binary claim."""

    id: str
    criteria: tuple[CriterionAnswer, ...]
    passed: StrictBool = Field(alias="pass")
    reasoning: str


class BinaryAnswer(_ToolInput):
    """Input of ``record_assertion_results``."""

    results: tuple[AssertionAnswer, ...] = Field(min_length=1)


class ScoreAnswer(_ToolInput):
    """The judge's score for one scale claim."""

    id: str
    score: int
    reasoning: str

    @field_validator("score", mode="before")
    @classmethod
    def _integral(cls, value: Any) -> Any:
        # Lax int would turn True into 1 and "4" into 4; only numbers are scores.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("score must be an integer")
        return value


class ScaleAnswer(_ToolInput):
    """Input of ``record_scores``."""

    results: tuple[ScoreAnswer, ...] = Field(min_length=1)


class PairwiseAnswer(_ToolInput):
    """Input of ``record_preference``."""

    winner: Literal["1", "2", "tie"]
    reasoning: str

    @field_validator("winner", mode="before")
    @classmethod
    def _number_as_label(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and value in (1, 2):
            return str(value)
        return value
