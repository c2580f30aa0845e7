"""The tool each kind of verdict is forced through, and pydantic models of its input.

The schemas are written out by hand rather than generated from the models: they are
sent with every request and enter the cache key, so a pydantic upgrade must not be
able to change them. Within each object the reasoning comes before the verdict, so the
judge writes its grounds before it commits to an answer.

``verdict_tool`` is a kind's tool in general (its form enters every judge's
``prompt_sha``); ``request_tool`` is the tool as one request sends it, its schema
bounded by what ``parse_verdict`` will demand of that request's claims: one entry per
claim, each claim's id, a binary claim's criteria count and a scale's bounds. A
judge that follows the schema then never gives an answer the validator refuses. The
bounds come from the claims alone, so every request about the same claims sends the
same tool and providers can still cache it as part of the prompt prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final, Literal

from pydantic import Field, StrictBool, field_validator

from verifier.contract.models import CompareClaim, JudgeClaim
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
    """The tool a judge of this kind must answer through (forced with ``tool_choice``),
    in general: ``request_tool`` bounds it for the claims of one request."""
    return VERDICT_TOOLS[kind]


def request_tool(kind: VerdictKind, claims: Sequence[JudgeClaim | CompareClaim]) -> ToolSpec:
    """The verdict tool of ``kind`` as a request about ``claims`` sends it.

    The name and description are the kind's; the schema says what the verdict's
    validator demands of these claims: ``results`` holds exactly one entry per claim,
    each naming its claim's id, a binary claim's ``criteria`` exactly as many entries
    as it has criteria, and a scale claim's ``score`` an integer within its scale. A
    pairwise verdict names no claim, so its tool is the kind's as it is.

    Args:
        kind: The verdict kind of the request.
        claims: The request's claims, in request order.
    """
    tool = verdict_tool(kind)
    properties = tool.input_schema["properties"]
    if kind == "pairwise" or not claims:
        return tool
    results = properties["results"]
    items = [_claim_entry(kind, results["items"], claim) for claim in claims]
    bounded = {
        **results,
        "minItems": len(items),
        "maxItems": len(items),
        "items": items[0] if len(items) == 1 else {"anyOf": items},
    }
    schema = {**tool.input_schema, "properties": {**properties, "results": bounded}}
    return replace(tool, input_schema=schema)


def _claim_entry(
    kind: VerdictKind, entry: dict[str, Any], claim: JudgeClaim | CompareClaim
) -> dict[str, Any]:
    """The schema of ``claim``'s entry in ``results``: the kind's, bounded for it."""
    properties = dict(entry["properties"])
    # An enum rather than a const: more constrained decoders (vLLM, llama.cpp) read it.
    properties["id"] = {**properties["id"], "enum": [claim.id]}
    if isinstance(claim, JudgeClaim):
        # A claim without criteria lets the judge name its own, as the validator does.
        if kind == "binary" and claim.criteria:
            count = len(claim.criteria)
            properties["criteria"] = {
                **properties["criteria"],
                "minItems": count,
                "maxItems": count,
            }
        if kind == "scale" and claim.scale is not None:
            bounds = {"minimum": claim.scale.min, "maximum": claim.scale.max}
            properties["score"] = {**properties["score"], **bounds}
    return {**entry, "properties": properties}


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
