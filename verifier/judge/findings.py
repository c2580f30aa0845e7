"""Verdicts of the two kinds that rest on findings: a critique's weaknesses and a
compliance judge's sections.

The judge reports what it found; the verdict is computed from that, never taken from
the judge: a critique's score is the claim's points for the number of weaknesses
found, a compliance claim's score is the judge's overall compliance, and each passes
at its claim's ``pass_at``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.contract.models import Compliance, Critique
from verifier.judge.finding_tools import ComplianceResult, CritiqueResult


@dataclass(frozen=True, slots=True)
class Finding:
    """A verdict computed from findings (``verdict.ClaimVerdict`` is made from it).

    Attributes:
        passed: Whether the claim passes.
        score: The claim's score in [0, 1].
        reason: The reason, before it is cut to one line.
        evidence: What the judge found and how it was scored.
    """

    passed: bool
    score: float
    reason: str
    evidence: dict[str, Any]


def critique_points(found: int, critique: Critique) -> int:
    """The points for ``found`` weaknesses: ``points[found]``, the last for more."""
    return critique.points[min(found, len(critique.points) - 1)]


def critiqued(answer: CritiqueResult, critique: Critique) -> Finding:
    """A critique claim's verdict: the points for the weaknesses found, over 100."""
    found = len(answer.weaknesses)
    points = critique_points(found, critique)
    listed = "; ".join(w.weakness.strip() for w in answer.weaknesses)
    if found:
        reason = f"{found} weakness{'es' if found > 1 else ''}: {listed}"
    else:
        reason = f"no weakness found: {answer.assessment}"
    evidence = {
        "verdict": {
            "weaknesses": [
                {"weakness": w.weakness, "suggestion": w.suggestion} for w in answer.weaknesses
            ],
            "assessment": answer.assessment,
        },
        "critique": {
            "found": found,
            "awarded": points,
            "points": list(critique.points),
            "pass_at": critique.pass_at,
        },
    }
    return Finding(points >= critique.pass_at, points / 100, reason, evidence)


def complied(answer: ComplianceResult, compliance: Compliance) -> Finding:
    """A compliance claim's verdict: the judge's overall compliance, against ``pass_at``."""
    overall = answer.overall_compliance
    poorly = "; ".join(
        f"{s.section} ({s.reason})" if s.reason.strip() else s.section
        for s in answer.poorly_followed
    )
    reason = f"compliance {overall:g}; " + (
        f"poorly followed: {poorly}" if poorly else "no section poorly followed"
    )
    evidence = {
        "verdict": {
            "well_followed": [s.model_dump() for s in answer.well_followed],
            "poorly_followed": [s.model_dump() for s in answer.poorly_followed],
            "overall_compliance": overall,
        },
        "compliance": {"pass_at": compliance.pass_at},
    }
    return Finding(overall >= compliance.pass_at, float(overall), reason, evidence)
