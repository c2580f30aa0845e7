"""Deciding a gate on a findings claim's precision, recall or F1.

A single run (``verifier run --gate``): the claim's **micro** figure (from the counts
summed over the cases, ``verifier.findings_tally``) against the gate's threshold.

A comparison (``verifier compare --gate``): the paired test ``compare`` already uses
for scores, Wilcoxon's signed-rank test, one-sided, on the per-case differences of the
measure (candidate minus baseline), shifted by the gate's margin: under ``better`` the
differences less the margin are tested for lying above 0 (the candidate is better by
more than the margin), under ``not-worse`` the differences plus the margin for lying
below 0 (worse by more than the margin). The pairs are the cases both runs checked
(neither an error) where the measure is defined in both (precision: both outputs gave
findings; recall: the case expected some); the rest are counted and left out. Each
run's micro and macro figures are printed beside the test, in percentage points as the
reports print them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import orjson

from verifier.compare.analysis import RunComparison
from verifier.compare.gate import (
    GateDecision,
    one_sided_signed_rank,
    run_tallies,
    secondary_claims,
)
from verifier.compare.gate_file import Gate, GateRefused
from verifier.findings_tally import (
    CaseCounts,
    FindingsTally,
    case_counts,
    findings_lines,
    findings_rows,
    is_findings_row,
)
from verifier.gaps.store import GapStore

__all__ = ["FindingsRun", "decide_findings_comparison", "decide_findings_run", "read_findings"]


@dataclass(frozen=True, slots=True)
class FindingsRun:
    """A findings claim in one run: its tally and each checked case's counts.

    Attributes:
        tally: The run's figures (micro and macro), as its reports print them.
        cases: Each case the claim checked, by case id (``None``: an error, or
            evidence without counts).
    """

    tally: FindingsTally
    cases: dict[str, CaseCounts | None]


def _bodies(store: GapStore, run_id: str) -> Iterator[dict[str, Any]]:
    for row in store.iter_rows(run_id):
        yield orjson.loads(row.body)


def read_findings(store: GapStore, run_id: str, claim_id: str) -> FindingsRun:
    """The findings claim ``claim_id`` in a stored run.

    Raises:
        GateRefused: The run has no findings row of that claim.
    """
    bodies = [
        body
        for body in _bodies(store, run_id)
        if body.get("claim_id") == claim_id and is_findings_row(body.get("evidence"))
    ]
    tallies = findings_rows(bodies)
    if claim_id not in tallies:
        raise GateRefused(f"run {run_id} has no findings row of the primary claim {claim_id}")
    cases: dict[str, CaseCounts | None] = {}
    for body in bodies:
        status = body.get("status")
        if status in ("pass", "fail", "error"):
            evidence: Mapping[str, Any] = body["evidence"]
            counts = case_counts(evidence) if status != "error" else None
            cases.setdefault(str(body.get("case_id")), counts)
    return FindingsRun(tallies[claim_id], cases)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def decide_findings_run(gate: Gate, store: GapStore, run_id: str) -> GateDecision:
    """Holds the primary findings claim's micro figure against the gate's threshold.

    Raises:
        GateRefused: The gate has no threshold, or the run has no findings row of its
            primary claim.
    """
    if gate.threshold is None:
        raise GateRefused("the gate has no threshold: a single run is held against one")
    run = read_findings(store, run_id, gate.primary_claim)
    value = run.tally.micro(gate.metric)
    better = gate.direction == "better"
    if value is None:
        passed, relation = False, "cannot be held against"
    else:
        passed = value > gate.threshold if better else value >= gate.threshold
        relation = (">" if passed else "<=") if better else (">=" if passed else "<")
    line = findings_lines({gate.primary_claim: run.tally.as_dict()})[0]
    evidence = (
        f"micro {gate.metric} {_pct(value)} {relation} threshold {_pct(gate.threshold)}; {line}"
    )
    secondary = tuple(
        (claim, f"pass rate {tally.rate_in_brief()}")
        for claim, tally in run_tallies(store, run_id).items()
        if claim != gate.primary_claim
    )
    return GateDecision(gate, passed, evidence, None, secondary)


def _differences(
    gate: Gate, base: FindingsRun, cand: FindingsRun
) -> tuple[list[Fraction], int, int]:
    """The paired per-case differences shifted by the margin, and how many cases an
    error left out and how many the measure was undefined in."""
    margin = Fraction(str(gate.margin or 0.0))
    shift = -margin if gate.direction == "better" else margin
    shifted, errors, undefined = [], 0, 0
    for case_id, b in base.cases.items():
        if case_id not in cand.cases:
            continue
        c = cand.cases[case_id]
        if b is None or c is None:
            errors += 1
            continue
        pair = [counts.exact(gate.metric) for counts in (b, c)]
        if pair[0] is None or pair[1] is None:
            undefined += 1
            continue
        shifted.append(pair[1] - pair[0] + shift)
    return shifted, errors, undefined


def decide_findings_comparison(
    gate: Gate, store: GapStore, comparison: RunComparison
) -> GateDecision:
    """Decides the gate on the paired signed-rank test of the primary findings claim's
    per-case measure, the margin applied (see the module docstring), and on the other
    claims' regressions as ``decide_comparison`` does (``secondary_claims``).

    Raises:
        GateRefused: A run has no findings row of the primary claim.
    """
    paired = comparison.paired
    base = read_findings(store, paired.baseline.run_id, gate.primary_claim)
    cand = read_findings(store, paired.candidate.run_id, gate.primary_claim)
    shifted, errors, undefined = _differences(gate, base, cand)
    towards_worse = gate.direction == "not-worse"
    p, test = one_sided_signed_rank(shifted, towards_worse=towards_worse)
    significant = p <= gate.alpha
    passed = significant if gate.direction == "better" else not significant
    margin = f"{(gate.margin or 0.0) * 100:g} points"
    if gate.direction == "better":
        says = f"{'' if significant else 'not '}significantly better by more than {margin}"
    else:
        says = f"{'' if significant else 'not '}significantly worse by more than {margin}"
    micro = [run.tally.micro(gate.metric) for run in (base, cand)]
    moved = (
        f"{(micro[1] - micro[0]) * 100:+.1f} points"
        if micro[0] is not None and micro[1] is not None
        else "—"
    )
    evidence = (
        f"micro {gate.metric} {_pct(micro[0])} -> {_pct(micro[1])} ({moved}); over "
        f"{len(shifted)} paired cases ({errors} with an error and {undefined} with "
        f"{gate.metric} undefined in either run left out), one-sided Wilcoxon signed-rank "
        f"p {p:.4g} ({test.method}) {'<=' if significant else '>'} alpha {gate.alpha:g}: "
        f"{says}; baseline "
        + findings_lines({gate.primary_claim: base.tally.as_dict()})[0]
        + "; candidate "
        + findings_lines({gate.primary_claim: cand.tally.as_dict()})[0]
    )
    secondary, blocking = secondary_claims(gate, comparison)
    if blocking:
        passed = False
        evidence += "; secondary regression blocks: " + ", ".join(blocking)
    return GateDecision(gate, passed, evidence, p, secondary, blocking)
