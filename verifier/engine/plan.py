"""A contract compiled for running: predicates prepared, claims ordered, gates resolved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.contract.findings import FindingsClaim
from verifier.contract.load import LoadedContract
from verifier.contract.models import claim_kind
from verifier.contract.overall import overall_rule
from verifier.fieldpath import FieldPath, compile_path
from verifier.overall import CaseOverall, OverallRule
from verifier.results import NOT_APPLICABLE, ClaimResult, RowKind, not_applicable_result
from verifier.rubric._base import Check, PrepareContext


@dataclass(frozen=True, slots=True)
class PlannedClaim:
    """One claim ready to evaluate.

    Attributes:
        claim: The validated claim model.
        kind: The gap-row kind it produces.
        check: The prepared predicate (rubric claims only).
        when: The claim's compiled ``when`` path (``None``: it applies to every case).
    """

    claim: Any
    kind: RowKind
    check: Check | None
    when: FieldPath | None = None

    @property
    def id(self) -> str:
        return str(self.claim.id)

    @property
    def after(self) -> tuple[str, ...]:
        return tuple(self.claim.after)

    @property
    def weight(self) -> float:
        return float(self.claim.weight)

    def not_applicable(self, case: Mapping[str, Any]) -> ClaimResult | None:
        """The claim's not-applicable row when ``case`` lacks its ``when`` path, else
        ``None`` (the claim applies)."""
        when = self.when
        if when is None or when.find(case):
            return None
        return not_applicable_result(self.id, self.kind, when.text)


@dataclass(frozen=True)
class Plan:
    """Claims split by phase.

    Attributes:
        order: Every claim in contract order (the order of results in reports).
        rubric: Rubric claims in gate order (a claim after the claims it waits for).
        model: Judge and comparative claims, checked after the rubric phase.
        overall: How a case's overall is made (``None``: the contract has no ``overall:``).
    """

    order: tuple[PlannedClaim, ...]
    rubric: tuple[PlannedClaim, ...]
    model: tuple[PlannedClaim, ...]
    overall: OverallRule | None = None

    def case_overall(self, results: Sequence[ClaimResult]) -> CaseOverall | None:
        """The overall of one case's results (``None``: the contract asks for none)."""
        return None if self.overall is None else self.overall.of(results)


def _gate_order(claims: list[PlannedClaim]) -> list[PlannedClaim]:
    # Lint has already rejected cycles and unknown names; a stable topological sort
    # keeps contract order wherever the gates allow it.
    by_id = {c.id: c for c in claims}
    done: set[str] = set()
    ordered: list[PlannedClaim] = []

    def place(claim: PlannedClaim) -> None:
        if claim.id in done:
            return
        done.add(claim.id)
        for gate in claim.after:
            if gate in by_id:
                place(by_id[gate])
        ordered.append(claim)

    for claim in claims:
        place(claim)
    return ordered


def _prepared(claim: Any, ctx: PrepareContext) -> Check:
    """The check of a claim of the rubric phase: its predicate's, or a findings claim's."""
    from verifier.engine.findings import prepare_findings
    from verifier.rubric._registry import REGISTRY

    if isinstance(claim, FindingsClaim):
        return prepare_findings(claim)
    return REGISTRY[claim.rubric].prepare(claim, ctx)


def build_plan(loaded: LoadedContract) -> Plan:
    """Prepares every rubric predicate once and orders the claims for the runner."""
    contract = loaded.contract
    ctx = PrepareContext(base_dir=loaded.files, llm_fields=contract.llm_fields)
    planned: list[PlannedClaim] = []
    for claim in contract.claims:
        kind = claim_kind(claim)
        check = _prepared(claim, ctx) if kind == "rubric" else None
        when = compile_path(claim.when) if claim.when is not None else None
        planned.append(PlannedClaim(claim, kind, check, when))
    rubric = [p for p in planned if p.kind == "rubric"]
    model = [p for p in planned if p.kind != "rubric"]
    return Plan(
        tuple(planned),
        tuple(_gate_order(rubric)),
        tuple(_gate_order(model)),
        overall_rule(contract.overall, contract.claims),
    )


def score_case(
    plan: Plan, results: Mapping[str, ClaimResult], threshold: float
) -> tuple[float, bool]:
    """Weighted passes over the weighted total; passing needs the threshold and no error.

    A claim that did not apply to the case weighs nothing in it; a case no claim
    applied to scores 0, as does one whose claims were all skipped (so it passes only
    at threshold 0).
    """
    weights = tuple(p.weight for p in plan.order)
    return weighted_score(weights, [results[p.id] for p in plan.order], threshold)


def weighted_score(
    weights: Sequence[float], ordered: Sequence[ClaimResult], threshold: float
) -> tuple[float, bool]:
    """``score_case`` over results already in plan order, with the plan's weights."""
    total = passed = 0.0
    has_error = False
    for weight, result in zip(weights, ordered, strict=True):
        status = result.status
        if status == "skipped" and NOT_APPLICABLE in result.evidence:
            continue
        total += weight
        if status == "pass":
            passed += weight
        elif status == "error":
            has_error = True
    score = passed / total if total else 0.0
    # Round away float noise so 0.1 + 0.2 style sums compare sensibly with thresholds.
    score = round(score, 12)
    return score, score >= threshold and not has_error
