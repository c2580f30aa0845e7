"""The tools of the two verdict kinds that report findings rather than a verdict:
``critique`` (the weaknesses the judge finds) and ``compliance`` (how well the output
follows each section of its instructions), and pydantic models of their input.

As for every verdict tool (``verifier.judge.tools``), the schemas are written out by
hand (``request_tool`` bounds them for a request's claims), and the grounds come
before the verdict: the weaknesses before the assessment, the sections (their evidence
and reason before their score) before the overall compliance.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import BeforeValidator, Field

from verifier.judge.tool_parts import CLAIM_ID, ToolInput, object_schema
from verifier.llm.types import ToolSpec

_CRITIQUE_SCHEMA: Final = object_schema(
    {
        "results": {
            "type": "array",
            "description": "One entry per claim, in the order given.",
            "items": object_schema(
                {
                    "id": CLAIM_ID,
                    "weaknesses": {
                        "type": "array",
                        "description": "Every distinct weakness found, most serious first; "
                        "empty when there is none.",
                        "items": object_schema(
                            {
                                "weakness": {
                                    "type": "string",
                                    "description": "What is wrong, grounded in the output.",
                                },
                                "suggestion": {
                                    "type": "string",
                                    "description": "How the output could fix it.",
                                },
                            },
                            ["weakness", "suggestion"],
                        ),
                    },
                    "assessment": {
                        "type": "string",
                        "description": "One sentence on the output as a whole.",
                    },
                },
                ["id", "weaknesses", "assessment"],
            ),
        }
    },
    ["results"],
)

_UNIT: Final = {"type": "number", "minimum": 0, "maximum": 1}
_SECTION_SCORE: Final = {
    **_UNIT,
    "description": "How well the output follows this section, from 0 to 1.",
}
_SECTION: Final = {
    "type": "string",
    "description": "The section of the instructions, named or quoted briefly.",
}
_EVIDENCE: Final = {"type": "string", "description": "What in the output shows it (quote it)."}

_COMPLIANCE_SCHEMA: Final = object_schema(
    {
        "results": {
            "type": "array",
            "description": "One entry per claim, in the order given.",
            "items": object_schema(
                {
                    "id": CLAIM_ID,
                    "well_followed": {
                        "type": "array",
                        "description": "Sections of the instructions the output follows well.",
                        "items": object_schema(
                            {"section": _SECTION, "evidence": _EVIDENCE, "score": _SECTION_SCORE},
                            ["section", "evidence", "score"],
                        ),
                    },
                    "poorly_followed": {
                        "type": "array",
                        "description": "Sections the output follows poorly or ignores.",
                        "items": object_schema(
                            {
                                "section": _SECTION,
                                "evidence": _EVIDENCE,
                                "reason": {
                                    "type": "string",
                                    "description": "What the section asks that the output "
                                    "does not do.",
                                },
                                "score": _SECTION_SCORE,
                            },
                            ["section", "evidence", "reason", "score"],
                        ),
                    },
                    "overall_compliance": {
                        **_UNIT,
                        "description": "How well the output follows the instructions as a "
                        "whole, from 0 (not at all) to 1 (fully).",
                    },
                },
                ["id", "well_followed", "poorly_followed", "overall_compliance"],
            ),
        }
    },
    ["results"],
)

CRITIQUE_TOOL: Final = ToolSpec(
    name="record_critique",
    description="Record the weaknesses found in the output for each claim.",
    input_schema=_CRITIQUE_SCHEMA,
)
COMPLIANCE_TOOL: Final = ToolSpec(
    name="record_compliance",
    description="Record how well the output follows each section of its instructions.",
    input_schema=_COMPLIANCE_SCHEMA,
)


def _unit_number(value: Any) -> Any:
    # Lax float would take True as 1.0 and "0.6" as 0.6; only numbers are scores.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("must be a number from 0 to 1")
    return value


UnitScore = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), BeforeValidator(_unit_number)]
"""A score in [0, 1] as a compliance judge gives it."""


class Weakness(ToolInput):
    """One weakness a critique found (a blank one is no finding: malformed)."""

    weakness: str = Field(pattern=r"\S")
    suggestion: str


class CritiqueResult(ToolInput):
    """The critique of one claim."""

    id: str
    weaknesses: tuple[Weakness, ...]
    assessment: str


class CritiqueAnswer(ToolInput):
    """Input of ``record_critique``."""

    results: tuple[CritiqueResult, ...] = Field(min_length=1)


class SectionFollowed(ToolInput):
    """A section of the instructions the output follows well."""

    section: str
    evidence: str
    score: UnitScore


class SectionMissed(SectionFollowed):
    """A section of the instructions the output follows poorly."""

    reason: str


class ComplianceResult(ToolInput):
    """The compliance verdict on one claim."""

    id: str
    well_followed: tuple[SectionFollowed, ...]
    poorly_followed: tuple[SectionMissed, ...]
    overall_compliance: UnitScore


class ComplianceAnswer(ToolInput):
    """Input of ``record_compliance``."""

    results: tuple[ComplianceResult, ...] = Field(min_length=1)
