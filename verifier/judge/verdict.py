"""Turning a judge's reply into per-claim verdicts, or into an explicit problem.

A verdict is never assumed: a reply without the forced tool call, with input that
does not validate, with claim ids that do not match the request, with a score off
the scale, cut short by ``max_tokens`` or refused is a ``VerdictProblem`` carrying a
one-line reason and the raw reply, and the row it produces is an error. Whether a
second try is worthwhile is on the problem; the scheduler does the retrying.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pydantic import ValidationError

from verifier.contract.models import CompareClaim, JudgeClaim, Scale
from verifier.judge.finding_tools import (
    ComplianceAnswer,
    ComplianceResult,
    CritiqueAnswer,
    CritiqueResult,
)
from verifier.judge.findings import Finding, complied, critiqued
from verifier.judge.tools import (
    AssertionAnswer,
    BinaryAnswer,
    PairwiseAnswer,
    ScaleAnswer,
    ScoreAnswer,
    verdict_tool,
)
from verifier.llm.types import ModelReply, RequestKind, VerdictKind

__all__ = [
    "ClaimVerdict",
    "ParsedVerdict",
    "ProblemKind",
    "VerdictProblem",
    "parse_verdict",
    "verdict_tool",
]

ProblemKind = Literal[
    "refused", "truncated", "no_tool_call", "malformed", "claim_ids", "score_out_of_range"
]
# A refusal, a truncated or malformed answer and a missing tool call are the kind of
# accident a second sample often avoids. Wrong claim ids or an off-scale score more
# often come from the template or the claim itself, so repeating the call would
# mostly repeat the cost.
RETRYABLE: Final[frozenset[str]] = frozenset({"refused", "truncated", "no_tool_call", "malformed"})
_TRUNCATED: Final = frozenset({"max_tokens", "model_context_window_exceeded"})


@dataclass(frozen=True, slots=True)
class VerdictProblem:
    """Why a reply could not be turned into a verdict.

    Attributes:
        kind: What went wrong.
        reason: One line for the gap row.
        retry: Whether one more call is worthwhile.
        raw: The reply as evidence (stop reason, tool input, text, raw response).
    """

    kind: ProblemKind
    reason: str
    retry: bool
    raw: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """The judge's verdict on one claim.

    Attributes:
        claim_id: The claim.
        status: ``pass`` or ``fail`` (problems are ``VerdictProblem``, never a status here).
        score: 1.0 or 0.0 for a binary claim; ``(score - min) / (max - min)`` on a scale;
            the points for the weaknesses found / 100 for a critique; the overall
            compliance for a compliance claim.
        reason: The judge's reasoning, prefixed when the verdict overrode the judge.
        evidence: What the judge answered, for the gap row.
    """

    claim_id: str
    status: Literal["pass", "fail"]
    score: float
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParsedVerdict:
    """A reply that validated.

    Attributes:
        kind: The verdict kind.
        claims: One verdict per claim in request order (every kind but pairwise).
        winner: ``1``, ``2`` or ``tie`` (pairwise only; the caller knows which output
            it put in which position).
        reasoning: The judge's reasoning for a pairwise verdict.
        tool_input: The tool input as the judge sent it.
    """

    kind: VerdictKind
    claims: tuple[ClaimVerdict, ...] = ()
    winner: Literal["1", "2", "tie"] | None = None
    reasoning: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)


def _one_line(text: str, limit: int = 300) -> str:
    line = re.sub(r"\s+", " ", text).strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _raw(reply: ModelReply) -> dict[str, Any]:
    return {
        "stop_reason": reply.stop_reason,
        "served_model": reply.served_model,
        "response_id": reply.response_id,
        "tool_input": reply.tool_input,
        "text": reply.text,
        "raw": reply.raw,
    }


def _problem(kind: ProblemKind, reason: str, reply: ModelReply) -> VerdictProblem:
    return VerdictProblem(kind, _one_line(reason), kind in RETRYABLE, _raw(reply))


def _validation_reason(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "input"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"malformed verdict: {where}: {first['msg']}{more}"


def parse_verdict(
    kind: RequestKind, reply: ModelReply, claims: Sequence[JudgeClaim | CompareClaim]
) -> ParsedVerdict | VerdictProblem:
    """Validates a judge reply against the claims it was asked about.

    Args:
        kind: The verdict kind the request asked for.
        reply: What the provider returned.
        claims: The claims of the request, in request order.

    Returns:
        The verdicts, or the problem that prevents them.
    """
    if kind == "generation":
        raise ValueError("a generation request asks for text, not a verdict")
    if kind in _CONFIGURED and any(getattr(c, kind, None) is None for c in claims):
        raise ValueError(f"a {kind} verdict needs claims that have a {kind}")
    if reply.stop_reason == "refusal":
        return _problem("refused", "the judge refused to answer", reply)
    if reply.stop_reason in _TRUNCATED:
        return _problem("truncated", f"the judge's answer was cut off ({reply.stop_reason})", reply)
    if reply.tool_input is None:
        said = f"; it wrote: {reply.text}" if reply.text.strip() else ""
        tool = verdict_tool(kind).name
        return _problem("no_tool_call", f"the judge did not call {tool}{said}", reply)
    try:
        answer = _validate(kind, reply.tool_input)
    except ValidationError as exc:
        return _problem("malformed", _validation_reason(exc), reply)
    if isinstance(answer, PairwiseAnswer):
        return ParsedVerdict(
            kind, winner=answer.winner, reasoning=answer.reasoning, tool_input=reply.tool_input
        )
    by_id, id_problem = _match_ids(answer.results, claims)
    if id_problem:
        return _problem("claim_ids", id_problem, reply)
    verdicts: list[ClaimVerdict] = []
    for claim in claims:
        one = by_id[claim.id]
        if isinstance(one, AssertionAnswer):
            verdict = _binary(claim, one)
            if isinstance(verdict, str):
                return _problem("malformed", verdict, reply)
        elif isinstance(one, CritiqueResult | ComplianceResult):
            verdict = _found(claim, one)
        else:
            verdict = _scaled(claim, one)
            if isinstance(verdict, str):
                return _problem("score_out_of_range", verdict, reply)
        verdicts.append(verdict)
    return ParsedVerdict(kind, claims=tuple(verdicts), tool_input=reply.tool_input)


_Answer = BinaryAnswer | ScaleAnswer | PairwiseAnswer | CritiqueAnswer | ComplianceAnswer
_Result = AssertionAnswer | ScoreAnswer | CritiqueResult | ComplianceResult
_ANSWERS: Final[dict[VerdictKind, type[_Answer]]] = {
    "binary": BinaryAnswer,
    "scale": ScaleAnswer,
    "pairwise": PairwiseAnswer,
    "critique": CritiqueAnswer,
    "compliance": ComplianceAnswer,
}
# Kinds whose claims carry the key of the same name, which scores their verdicts.
_CONFIGURED: Final = frozenset({"scale", "critique", "compliance"})


def _validate(kind: VerdictKind, tool_input: dict[str, Any]) -> _Answer:
    return _ANSWERS[kind].model_validate(tool_input)


def _match_ids(
    results: Sequence[_Result], claims: Sequence[JudgeClaim | CompareClaim]
) -> tuple[dict[str, _Result], str]:
    asked = [c.id for c in claims]
    got = [r.id for r in results]
    unknown = sorted(set(got) - set(asked))
    missing = [i for i in asked if i not in got]
    duplicated = sorted({i for i in got if got.count(i) > 1})
    parts = []
    if missing:
        parts.append(f"no verdict for {', '.join(missing)}")
    if unknown:
        parts.append(f"verdicts for unknown ids {', '.join(unknown)}")
    if duplicated:
        parts.append(f"several verdicts for {', '.join(duplicated)}")
    return {r.id: r for r in results}, "; ".join(parts)


def _binary(claim: JudgeClaim | CompareClaim, answer: AssertionAnswer) -> ClaimVerdict | str:
    asked = claim.criteria if isinstance(claim, JudgeClaim) else ()
    if asked and len(answer.criteria) != len(asked):
        return (
            f"malformed verdict: {claim.id}: the judge answered {len(answer.criteria)} "
            f"of {len(asked)} criteria"
        )
    criteria = [
        {
            "criterion": asked[i] if asked else a.criterion,
            "met": a.met,
            "reasoning": a.reasoning,
        }
        for i, a in enumerate(answer.criteria)
    ]
    unmet = [c["criterion"] for c in criteria if not c["met"]]
    evidence: dict[str, Any] = {
        "verdict": {"pass": answer.passed, "reasoning": answer.reasoning, "criteria": criteria}
    }
    reason = answer.reasoning
    if answer.passed and unmet:
        evidence["disagreement"] = "the judge said pass although criteria were not met"
        reason = (
            f"{len(unmet)} of {len(criteria)} criteria not met ({unmet[0]}) "
            f"although the judge said pass; {reason}"
        )
    elif not answer.passed and criteria and not unmet:
        evidence["disagreement"] = "the judge said fail although every criterion was met"
    passed = answer.passed and not unmet
    return ClaimVerdict(
        claim.id, "pass" if passed else "fail", 1.0 if passed else 0.0, _one_line(reason), evidence
    )


def _scaled(claim: JudgeClaim | CompareClaim, answer: ScoreAnswer) -> ClaimVerdict | str:
    scale = claim.scale if isinstance(claim, JudgeClaim) else None
    if scale is None:  # parse_verdict refuses such claims up front
        raise ValueError(f"claim {claim.id} has no scale")
    if not scale.min <= answer.score <= scale.max:
        return f"{claim.id}: score {answer.score} lies outside the scale [{scale.min}, {scale.max}]"
    passed = answer.score >= scale.pass_at
    return ClaimVerdict(
        claim.id,
        "pass" if passed else "fail",
        normalised_score(answer.score, scale),
        _one_line(answer.reasoning),
        {"verdict": {"score": answer.score, "reasoning": answer.reasoning}, "scale": _scale(scale)},
    )


def _found(
    claim: JudgeClaim | CompareClaim, answer: CritiqueResult | ComplianceResult
) -> ClaimVerdict:
    finding: Finding | None = None
    if isinstance(claim, JudgeClaim):
        if isinstance(answer, CritiqueResult) and claim.critique is not None:
            finding = critiqued(answer, claim.critique)
        elif isinstance(answer, ComplianceResult) and claim.compliance is not None:
            finding = complied(answer, claim.compliance)
    if finding is None:  # parse_verdict refuses such claims up front
        raise ValueError(f"claim {claim.id} does not ask for this kind of verdict")
    status: Literal["pass", "fail"] = "pass" if finding.passed else "fail"
    return ClaimVerdict(
        claim.id, status, finding.score, _one_line(finding.reason), finding.evidence
    )


def normalised_score(score: int, scale: Scale) -> float:
    """A score on ``scale`` mapped onto [0, 1]: ``(score - min) / (max - min)``."""
    return (score - scale.min) / (scale.max - scale.min)


def _scale(scale: Scale) -> dict[str, int]:
    return {"min": scale.min, "max": scale.max, "pass_at": scale.pass_at}
