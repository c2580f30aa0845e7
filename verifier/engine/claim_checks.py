"""Checking a case's claims without a model: the rubric pass, skips and stand-ins.

Phase 1 of a run checks every rubric claim of a case in-process, in gate order
(``RubricPass``, ``check_rubric``). A claim whose ``when`` finds nothing, or whose
``after`` gate did not pass, gets a ``skipped`` row instead (``skipped_result``, which a
model phase asks too before any call). Without judges, phase 2 makes the deterministic
comparisons and records every claim needing a judge as an error
(``UnavailableModelPhase``); a case line that could not be read is an error row for
every claim (``line_error_results``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from verifier.cases import CaseLine
from verifier.contract.json_fields import unparsed_check
from verifier.engine.plan import Plan, PlannedClaim
from verifier.results import NOT_APPLICABLE, ClaimResult, RowStatus, claim_result
from verifier.rubric._base import Check


def skip_reason(claim: PlannedClaim, results: Mapping[str, ClaimResult]) -> str | None:
    """Why a gated claim is skipped, or ``None`` when every gate passed."""
    blocked = [
        f"{g} ({results[g].status})"
        for g in claim.after
        if g in results and results[g].status != "pass"
    ]
    if not blocked:
        return None
    return "skipped: waits for " + ", ".join(blocked) + " to pass"


def skipped_result(
    claim: PlannedClaim, results: Mapping[str, ClaimResult], case: Mapping[str, Any]
) -> ClaimResult | None:
    """The ``skipped`` row of a claim that is not checked on ``case``: not applicable
    (its ``when`` path is missing), or waiting for a gate that did not pass; ``None``
    when it is to be checked. A model phase asks this before making any call."""
    result = claim.not_applicable(case)
    if result is None and claim.after:
        reason = skip_reason(claim, results)
        if reason is not None:
            result = ClaimResult(claim.id, claim.kind, "skipped", None, reason, {})
    return result


class _RubricStep(NamedTuple):
    """What phase 1 needs of a rubric claim, read once from the plan."""

    claim_id: str
    check: Check
    gated: bool
    planned: PlannedClaim
    conditional: bool


def _rubric_steps(plan: Plan) -> tuple[_RubricStep, ...]:
    steps = []
    for planned in plan.rubric:
        assert planned.check is not None
        steps.append(
            _RubricStep(
                planned.id, planned.check, bool(planned.after), planned, planned.when is not None
            )
        )
    return tuple(steps)


class RubricPass:
    """Phase 1 for the cases of one plan, the plan read once: called with a case (and
    the claims that read a field whose JSON text did not parse, each an error with the
    reason given; see ``verifier.contract.json_fields``), it returns every rubric
    claim's result, in gate order."""

    def __init__(self, plan: Plan) -> None:
        self._steps = _rubric_steps(plan)

    def __call__(
        self, case: Mapping[str, Any], unparsed: Mapping[str, str] | None = None
    ) -> dict[str, ClaimResult]:
        return _check_rubric(_unparsed(self._steps, unparsed), case)


def check_rubric(
    plan: Plan, case: Mapping[str, Any], unparsed: Mapping[str, str] | None = None
) -> dict[str, ClaimResult]:
    """Phase 1 for one case (``RubricPass`` for many)."""
    return RubricPass(plan)(case, unparsed)


def _check_rubric(steps: Sequence[_RubricStep], case: Mapping[str, Any]) -> dict[str, ClaimResult]:
    results: dict[str, ClaimResult] = {}
    for claim_id, check, gated, planned, conditional in steps:
        if conditional:
            absent = planned.not_applicable(case)
            if absent is not None:
                results[claim_id] = absent
                continue
        if gated:
            reason = skip_reason(planned, results)
            if reason is not None:
                results[claim_id] = ClaimResult(claim_id, "rubric", "skipped", None, reason, {})
                continue
        try:
            status, reason, evidence, score = check(case)
        except Exception as exc:  # a predicate bug must not lose the other results
            results[claim_id] = ClaimResult(
                claim_id,
                "rubric",
                "error",
                None,
                f"internal error in predicate "
                f"{getattr(planned.claim, 'rubric', None) or planned.claim.compare!r}: "
                f"{type(exc).__name__}: {exc}",
                {},
            )
            continue
        # Outcome.resolved_score, inlined: this runs once per claim per case.
        if score is None and status != "error":
            score = 1.0 if status == "pass" else 0.0
        row_status: RowStatus = status
        if status == "error" and NOT_APPLICABLE in evidence:
            row_status = "skipped"  # the predicate found nothing it applies to on this case
        results[claim_id] = claim_result(claim_id, "rubric", row_status, score, reason, evidence)
    return results


def _unparsed(
    steps: Sequence[_RubricStep], reasons: Mapping[str, str] | None
) -> Sequence[_RubricStep]:
    """``steps`` with each claim that reads a field whose JSON text did not parse an error,
    so the claims gated on it are skipped as after any other error."""
    if not reasons:
        return steps
    return [
        step._replace(check=unparsed_check(reasons[step.claim_id]))
        if step.claim_id in reasons
        else step
        for step in steps
    ]


class UnavailableModelPhase:
    """Phase 2 without judges: deterministic comparisons are made; a claim that needs a
    judge becomes an honest error row (no call is made)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    async def evaluate(
        self, chunk: Sequence[CaseLine], prior: Sequence[Mapping[str, ClaimResult]]
    ) -> list[dict[str, ClaimResult]]:
        from verifier.contract.models import CompareClaim
        from verifier.engine.comparative import check_deterministic

        out: list[dict[str, ClaimResult]] = []
        for line, results in zip(chunk, prior, strict=True):
            case_out: dict[str, ClaimResult] = {}
            merged = dict(results)
            for planned in self.plan.model:
                skipped = skipped_result(planned, merged, line.case or {})
                claim = planned.claim
                if skipped is not None:
                    result = skipped
                elif isinstance(claim, CompareClaim) and claim.compare != "pairwise":
                    result = check_deterministic(claim, line.case or {})
                else:
                    result = ClaimResult(
                        planned.id,
                        planned.kind,
                        "error",
                        None,
                        "no judge is configured for this run; the claim was not checked",
                        {},
                    )
                case_out[planned.id] = merged[planned.id] = result
            out.append(case_out)
        return out


def line_error_results(plan: Plan, line: CaseLine) -> dict[str, ClaimResult]:
    """An error row for every claim of a case line that could not be read."""
    reason = line.error or f"line {line.line}: unusable case"
    return {
        p.id: ClaimResult(p.id, p.kind, "error", None, reason, {"line": line.line})
        for p in plan.order
    }
