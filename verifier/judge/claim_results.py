"""A judge's answers made into claim results: the verdict, the evidence a row keeps
(the stability triple, usage, where a cached verdict came from) and, when no verdict
could be had, an error that says why.

The judge phase (``verifier.judge.phase``) decides what to ask and obtains the
replies; this module only reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from verifier.contract.models import JudgeClaim, JudgeSpec
from verifier.engine.comparative import combine_orders
from verifier.engine.plan import PlannedClaim
from verifier.judge.majority import combine_samples
from verifier.judge.prompt import MissingFieldError
from verifier.judge.stats import JudgeStats
from verifier.judge.stored_prompt import stored_prompt_evidence
from verifier.judge.verdict import ClaimVerdict, ParsedVerdict, VerdictProblem, parse_verdict
from verifier.llm.cache import CachedReply
from verifier.llm.triple import missing_parts, served_mismatch
from verifier.llm.types import ModelReply, ModelRequest, RequestKind
from verifier.results import ClaimResult, RowStatus


@dataclass(frozen=True, slots=True)
class Obtained:
    """One sample's outcome: a verdict per claim or a problem, with where it came from."""

    verdicts: dict[str, ClaimVerdict] | None
    problem: str | None
    request: ModelRequest
    reply: ModelReply | None
    cached: CachedReply | None
    raw: dict[str, Any] = field(default_factory=dict)
    winner: str | None = None  # pairwise: "1", "2" or "tie" by position


def names_model(reply: ModelReply | None) -> bool:
    """Whether ``reply`` names the model that served it (a blank name names none).

    A reply that does not is never cached nor taken from the cache: its row is an
    error, and a rerun asks again.
    """
    return reply is not None and bool(reply.served_model and reply.served_model.strip())


def recorded_verdict(
    request: ModelRequest, hit: CachedReply, claims: Sequence[Any]
) -> ParsedVerdict | VerdictProblem:
    """The verdict a cached or recorded reply holds, or why it holds none: it does not
    parse, or it names no served model (so no row could carry its triple)."""
    parsed = parse_verdict(request.verdict, hit.reply, claims)
    if isinstance(parsed, VerdictProblem) or names_model(hit.reply):
        return parsed
    reply = hit.reply
    raw = {"stop_reason": reply.stop_reason, "tool_input": reply.tool_input, "text": reply.text}
    return VerdictProblem("malformed", "the reply names no served model", False, raw)


def not_asked(exc: MissingFieldError, planned: Sequence[PlannedClaim]) -> list[ClaimResult]:
    """The results of claims whose request could not be made: a field it needs is
    missing. No judge was asked, so there is no triple, and a judge row without one is
    an error (DESIGN §2; `verifier audit` rejects such a pass or fail)."""
    reason = f"field {exc.path} is missing, so the judge was not asked"
    return [ClaimResult(p.id, p.kind, "error", None, reason, {"path": exc.path}) for p in planned]


def _judge_evidence(
    spec: JudgeSpec, name: str, request: ModelRequest, reply: ModelReply | None
) -> tuple[dict[str, str], dict[str, Any]]:
    """The stability triple of a verdict resting on ``reply`` to ``request``, and the
    evidence every judge row opens with."""
    triple = {
        "model_id": (reply.served_model if reply is not None else None) or "",
        "prompt_sha": request.prompt_sha,
        "sampling_sha": request.sampling_sha,
    }
    evidence: dict[str, Any] = {
        "judge": triple,
        "judge_name": name,
        "requested_model": spec.model,
        "provider": spec.provider,
        "verdict_kind": request.verdict,
    }
    return triple, evidence


def _add_judge_identity(evidence: dict[str, Any], spec: JudgeSpec, model_id: str) -> None:
    """Adds a stored prompt's id and version, and a served model that is not the one
    asked for."""
    evidence.update(stored_prompt_evidence(spec))
    if mismatch := served_mismatch(spec.model, model_id):
        evidence["served_mismatch"] = mismatch


def judge_result(
    planned: PlannedClaim, spec: JudgeSpec, name: str, samples: Sequence[Obtained]
) -> ClaimResult:
    """The result of a judge claim from its samples: the one verdict, the majority of
    several, or an error when no usable verdict carries the stability triple."""
    usable = [s for s in samples if s.verdicts is not None and names_model(s.reply)]
    base = usable[0] if usable else samples[0]
    request, reply = base.request, base.reply
    triple, evidence = _judge_evidence(spec, name, request, reply)
    claim = planned.claim
    if isinstance(claim, JudgeClaim) and claim.reference is not None:
        # A reference-guided claim is asked through a template of its own: audit
        # tells its judge identity apart from the same judge's without a reference.
        evidence["reference"] = sorted(claim.reference.paths())
    _add_judge_identity(evidence, spec, triple["model_id"])
    if reply is not None:
        evidence["usage"] = reply.usage.as_dict()
        evidence["latency_ms"] = round(reply.latency_ms, 1)
        evidence["response_id"] = reply.response_id
    if base.cached is not None:
        evidence["cache"] = {
            "hit": True,
            "recorded_at": base.cached.recorded_at,
            "recorded_run": base.cached.recorded_run,
        }
    missing = missing_parts(triple)
    if not usable or missing:
        reason = base.problem or f"judge reply lacks the stability triple's {', '.join(missing)}"
        if reply is not None:
            evidence["raw_reply"] = base.raw or {
                "stop_reason": reply.stop_reason,
                "text": reply.text,
                "tool_input": reply.tool_input,
            }
        return ClaimResult(planned.id, planned.kind, "error", None, reason, evidence)
    if len(samples) == 1:
        single = (base.verdicts or {})[planned.id]
        evidence["verdict"] = single.evidence
        return ClaimResult(
            planned.id, planned.kind, single.status, single.score, single.reason, evidence
        )
    return _majority(planned, samples, usable, evidence, kind=request.verdict)


def _majority(
    planned: PlannedClaim,
    samples: Sequence[Obtained],
    usable: Sequence[Obtained],
    evidence: dict[str, Any],
    *,
    kind: RequestKind,
) -> ClaimResult:
    """The result several samples agree on, each sample's vote kept in the evidence."""
    votes: list[ClaimVerdict | VerdictProblem] = []
    for obtained in samples:
        verdict = (obtained.verdicts or {}).get(planned.id)
        if verdict is not None and names_model(obtained.reply):
            votes.append(verdict)
        else:
            problem = obtained.problem or "reply named no served model"
            votes.append(VerdictProblem("malformed", problem, False, obtained.raw))
    combined = combine_samples(votes, requested=len(samples), kind=kind)
    served = sorted({s.reply.served_model for s in usable if s.reply and s.reply.served_model})
    if len(served) > 1:
        evidence["served_models"] = served
    evidence["samples"] = list(combined.samples)
    evidence["agreement_rate"] = combined.agreement_rate
    return ClaimResult(
        planned.id, planned.kind, combined.status, combined.score, combined.reason, evidence
    )


def pairwise_result(
    planned: PlannedClaim,
    spec: JudgeSpec,
    name: str,
    both: Sequence[Obtained],
    stats: JudgeStats,
) -> ClaimResult:
    """The result of a pairwise claim asked in both orders (``both``: A shown first,
    then B): the output preferred in both orders, or a tie; a decided comparison counts
    in ``stats``, with whether the judge followed the position."""
    first = both[0]
    triple, evidence = _judge_evidence(spec, name, first.request, first.reply)
    evidence["orders"] = [
        {"shown_first": shown, "winner": o.winner, "problem": o.problem}
        for shown, o in zip(("a", "b"), both, strict=True)
    ]
    _add_judge_identity(evidence, spec, triple["model_id"])
    failed = [o for o in both if o.winner is None or not names_model(o.reply)]
    missing = missing_parts(triple)
    if failed or missing:
        reason = next((o.problem for o in failed if o.problem), None)
        reason = reason or f"judge reply lacks the stability triple's {', '.join(missing)}"
        return ClaimResult(planned.id, "comparative", "error", None, reason, evidence)
    outcome, inconsistent = combine_orders(str(both[0].winner), str(both[1].winner))
    stats.compared(planned.id, inconsistent=inconsistent)
    evidence["preferred"] = outcome
    evidence["inconsistent"] = inconsistent
    status: RowStatus
    if outcome == "b":
        status, score = "fail", 0.0
        reason = "the judge preferred output B in both orders"
    elif outcome == "a":
        status, score = "pass", 1.0
        reason = "the judge preferred output A in both orders"
    else:
        status, score = "pass", 0.5
        reason = (
            "a tie: the judge's choice followed the position, not the content"
            if inconsistent
            else "a tie: neither output is better"
        )
    return ClaimResult(planned.id, "comparative", status, score, reason, evidence)
