"""Deciding a pre-registered gate: on its primary claim only, the rest reported.

Two decisions, both on the gate's primary claim and metric (``gate_file``):

- a single run (``verifier run --gate``): the claim's pass rate or mean score as every
  report prints it (``results.ClaimTally``: over the results checked, an error counting
  as checked and not passed, a skipped result left out) against the gate's threshold:
  at least the threshold for ``not-worse``, above it for ``better``;
- a comparison (``verifier compare --gate``): the paired test ``verifier compare`` uses
  on the claim, one-sided at the gate's alpha and in the gate's direction, without
  Holm's correction, because the one primary claim was named before the runs. For
  ``pass_rate`` the exact McNemar test of the discordant pairs; for ``mean_score``
  Wilcoxon's signed-rank test of the paired score differences. ``better`` passes when
  the candidate is significantly better; ``not-worse`` passes unless it is
  significantly worse. The pairs are the cases both runs gave a verdict on; each run's
  own figure (over its own checked results) is printed beside the test, so a claim
  behind an ``after`` gate that was checked on different cases says so.

Every other claim is secondary: reported with its figures and, in a comparison, its
two-sided Holm-adjusted verdict. A secondary claim (or whole cases) significantly worse
in the candidate fails the gate, unless the gate was locked ``secondary: report-only``;
a single run's secondary claims never decide (there is nothing to regress from).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import orjson

from verifier.compare.analysis import ClaimComparison, RunComparison
from verifier.compare.gate_file import FINDINGS_METRICS, Gate, GateRefused
from verifier.compare.score_differences import difference_counts
from verifier.compare.signed_rank import SignedRankResult, rank_groups, wilcoxon_signed_rank
from verifier.gaps.store import GapStore
from verifier.results import ClaimTally, rate_text, tally_rows

__all__ = ["GateDecision", "decide_comparison", "decide_run", "run_tallies"]


@dataclass(frozen=True, slots=True)
class GateDecision:
    """The gate's verdict and what it rests on.

    Attributes:
        gate: The gate decided.
        passed: Whether the primary claim met the rule.
        evidence: The figures the verdict rests on, in words.
        p_value: The one-sided p-value of a comparison; ``None`` for a single run.
        secondary: ``(claim, figures)`` of every other claim.
        blocking: The secondary claims whose significant regression failed the gate.
    """

    gate: Gate
    passed: bool
    evidence: str
    p_value: float | None
    secondary: tuple[tuple[str, str], ...]
    blocking: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 when the gate passed, 1 when it failed."""
        return 0 if self.passed else 1

    def _rest(self) -> str:
        others = "; ".join(f"{claim}: {text}" for claim, text in self.secondary) or "none"
        return (
            f"on primary claim {self.gate.primary_claim} {self.gate.rule()}: "
            f"{self.evidence}; secondary ({self._secondary_role()}): {others}"
        )

    def _secondary_role(self) -> str:
        """What the secondary claims did to the verdict, as the line names them."""
        if self.p_value is None or self.gate.secondary_policy == "report-only":
            return "not deciding"
        return "a significant regression blocks"

    def line(self) -> str:
        """``gate: PASS on primary claim X (metric, direction, alpha A): ...; secondary
        (not deciding): ...``."""
        return f"gate: {'PASS' if self.passed else 'FAIL'} {self._rest()}"

    def as_json(self) -> dict[str, Any]:
        """The decision as a JSON-ready dict."""
        gate = self.gate
        return {
            "verdict": "PASS" if self.passed else "FAIL",
            "line": self.line(),
            "primary_claim": gate.primary_claim,
            "metric": gate.metric,
            "direction": gate.direction,
            "alpha": gate.alpha,
            "threshold": gate.threshold,
            "evidence": self.evidence,
            "p_value": self.p_value,
            "secondary": [
                {
                    "claim": c,
                    "not_deciding": self._secondary_role() == "not deciding",
                    "blocking": c in self.blocking,
                    "figures": t,
                }
                for c, t in self.secondary
            ],
            "secondary_policy": gate.secondary_policy,
            "contract_sha256": gate.contract_sha256,
            "cases_sha256": gate.cases_sha256,
        }

    def markdown(self) -> str:
        """The decision as one Markdown paragraph, the verdict in bold."""
        return f"**gate: {'PASS' if self.passed else 'FAIL'}** {self._rest()}\n"


def run_tallies(store: GapStore, run_id: str) -> dict[str, ClaimTally]:
    """Every claim's tally over a run's stored rows: the counts its report made."""
    return tally_rows(orjson.loads(row.body) for row in store.iter_rows(run_id))


def _metric_text(gate: Gate, tally: ClaimTally) -> str:
    """The primary metric of a tally, with the counts it rests on."""
    if gate.metric == "pass_rate":
        return f"pass rate {tally.rate_with_counts()}"
    mean = tally.mean_score
    return f"mean score {'—' if mean is None else f'{mean:.3f}'} ({tally.counts_text()})"


def _metric(gate: Gate, tally: ClaimTally) -> float | None:
    return tally.pass_rate if gate.metric == "pass_rate" else tally.mean_score


def _threshold_text(gate: Gate, threshold: float) -> str:
    """The threshold on the scale its metric is printed on."""
    return rate_text(threshold) if gate.metric == "pass_rate" else f"{threshold:.3f}"


def decide_run(gate: Gate, store: GapStore, run_id: str) -> GateDecision:
    """Holds the primary claim's metric in a stored run against the gate's threshold.

    The metric is the one every report prints (``ClaimTally``): passes (or the mean
    score) over the results checked, an error counting as checked and not passed, a
    skipped result left out. A claim checked on no case cannot meet any threshold.

    Raises:
        GateRefused: The gate has no threshold, or the run has no row of its primary claim.
    """
    if gate.metric in FINDINGS_METRICS:  # a findings claim's micro figure
        from verifier.compare.gate_findings import decide_findings_run

        return decide_findings_run(gate, store, run_id)
    if gate.threshold is None:
        raise GateRefused(
            "the gate has no threshold: a single run is held against one (lock it with "
            "--threshold), or compare two runs with verifier compare --gate"
        )
    tallies = run_tallies(store, run_id)
    if gate.primary_claim not in tallies:
        raise GateRefused(f"run {run_id} has no row of the primary claim {gate.primary_claim}")
    tally = tallies[gate.primary_claim]
    value = _metric(gate, tally)
    if value is None:
        passed = False
        relation = "cannot be held against"
    else:
        passed = value > gate.threshold if gate.direction == "better" else value >= gate.threshold
        better = gate.direction == "better"
        relation = (">" if passed else "<=") if better else (">=" if passed else "<")
    evidence = (
        f"{_metric_text(gate, tally)} {relation} threshold {_threshold_text(gate, gate.threshold)}"
    )
    if value is None:
        evidence += ": the claim was checked on no case"
    secondary = tuple(
        (claim, _brief(gate, other))
        for claim, other in tallies.items()
        if claim != gate.primary_claim
    )
    return GateDecision(gate, passed, evidence, None, secondary)


def _brief(gate: Gate, tally: ClaimTally) -> str:
    """A secondary claim's metric in brief, its counts beside it."""
    if gate.metric == "pass_rate":
        return f"pass rate {tally.rate_in_brief()}"
    mean = tally.mean_score
    return f"mean score {'—' if mean is None else f'{mean:.3f}'} ({tally.checked} checked)"


def _binomial_upper_tail(successes: int, trials: int) -> float:
    """P(X >= successes) for X ~ Binomial(trials, 1/2), counted exactly."""
    if trials == 0:
        return 1.0
    tail = sum(math.comb(trials, k) for k in range(successes, trials + 1))
    return float(Fraction(tail, 2**trials))


def _one_sided_p(gate: Gate, comparison: RunComparison, index: int) -> tuple[float, str]:
    """One-sided p-value of the alternative the gate tests, and the figures it rests on.

    The alternative is "the candidate is better" for ``better`` and "the candidate is
    worse" for ``not-worse``.
    """
    claim = comparison.claims[index]
    towards_worse = gate.direction == "not-worse"
    if gate.metric == "pass_rate":
        table = claim.table
        favoured = table.baseline_only if towards_worse else table.candidate_only
        p = _binomial_upper_tail(favoured, claim.discordant)
        # Named apart from each run's own pass rate, printed after it: these are over
        # the pairs only.
        figures = (
            f"in the {table.pairs} paired cases, passes {table.baseline_passed} -> "
            f"{table.candidate_passed} ({rate_text(table.baseline_rate)} -> "
            f"{rate_text(table.candidate_rate)}), {table.baseline_only} worse and "
            f"{table.candidate_only} better; one-sided exact McNemar p {p:.4g}"
        )
        return p, figures
    differences = comparison.paired.claims[index].score_differences
    p, test = one_sided_signed_rank(differences, towards_worse=towards_worse)
    figures = (
        f"median score difference {test.median_difference:+.3f} over {test.nonzero} pairs "
        f"that moved; one-sided Wilcoxon signed-rank p {p:.4g} ({test.method})"
    )
    return p, figures


def one_sided_signed_rank(
    differences: Sequence[Fraction], *, towards_worse: bool
) -> tuple[float, SignedRankResult]:
    """Wilcoxon's signed-rank test of paired differences, one-sided: the p-value of
    "the candidate is worse" (``towards_worse``) or "is better", and the test."""
    test = wilcoxon_signed_rank(differences)
    groups, positive = rank_groups(difference_counts(differences))
    total = sum(doubled * size for doubled, size in groups)
    # The null distribution is symmetric about the rank sum / 2 (doubled units), so the
    # one-sided p-value is half the two-sided one when the ranks lean the tested way,
    # and at least one half when they do not.
    leans = 2 * positive < total if towards_worse else 2 * positive > total
    return (test.p_value / 2 if leans else 1.0 - test.p_value / 2), test


def _checked_in_both(
    gate: Gate, tallies: tuple[ClaimTally, ClaimTally], claim: ClaimComparison
) -> str:
    """Each run's own figure of the primary claim, and what the pairs leave out.

    A claim behind an ``after`` gate is checked on fewer cases when its gate fails more
    often, so each run's figure is over its own checked cases, while the paired test
    compares only the cases both runs gave a verdict on: the line says which were left out.
    """
    base, cand = tallies
    text = f"baseline {_metric_text(gate, base)}, candidate {_metric_text(gate, cand)}"
    if claim.errors or claim.skipped:
        text += (
            f"; the test pairs the {claim.table.pairs} cases both runs gave a verdict on "
            f"({claim.skipped} skipped and {claim.errors} with an error in either run left out)"
        )
    return text


def _blocking(gate: Gate, comparison: RunComparison) -> tuple[str, ...]:
    """The secondary claims (and whole cases) significantly worse in the candidate, by
    the two-sided Holm-adjusted test ``verifier compare`` reports, which fail the gate
    unless it was locked ``secondary: report-only``."""
    if gate.secondary_policy == "report-only":
        return ()
    return tuple(c.name for c in comparison.worse if c.name != gate.primary_claim)


def secondary_claims(
    gate: Gate, comparison: RunComparison
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Every claim but the primary one with its two-sided Holm-adjusted figures, and
    those whose significant regression blocks the gate."""
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    secondary = tuple(
        (
            c.name,
            f"{c.table.difference * 100:+.1f} pp over {c.table.pairs} pairs, {c.verdict} "
            "(two-sided, Holm-adjusted)",
        )
        for c in every
        if c.name != gate.primary_claim
    )
    return secondary, _blocking(gate, comparison)


def decide_comparison(gate: Gate, comparison: RunComparison) -> GateDecision:
    """Decides the gate on the paired test of its primary claim in ``comparison``, and on
    its secondary claims' regressions unless it was locked ``secondary: report-only``.

    ``comparison`` should be computed at the gate's alpha, so the secondary verdicts
    (Holm-adjusted, two-sided, as ``verifier compare`` reports them) use it too. Each
    run's own figure of the primary claim is the tally pairing made of its rows.

    Raises:
        GateRefused: The primary claim is not in both runs.
    """
    names = [c.name for c in comparison.claims]
    if gate.primary_claim not in names:
        raise GateRefused(
            f"the primary claim {gate.primary_claim} is not in both runs "
            f"{comparison.paired.baseline.run_id} and {comparison.paired.candidate.run_id}"
        )
    index = names.index(gate.primary_claim)
    p, figures = _one_sided_p(gate, comparison, index)
    significant = p <= gate.alpha
    passed = significant if gate.direction == "better" else not significant
    if gate.direction == "better":
        says = "significantly better" if significant else "not significantly better"
    else:
        says = "significantly worse" if significant else "not significantly worse"
    own = tuple(
        tallies.get(gate.primary_claim, ClaimTally()) for tallies in comparison.paired.tallies
    )
    evidence = (
        f"{figures} {'<=' if significant else '>'} alpha {gate.alpha:g}: {says}; "
        f"{_checked_in_both(gate, (own[0], own[1]), comparison.claims[index])}"
    )
    secondary, blocking = secondary_claims(gate, comparison)
    if blocking:
        passed = False
        evidence += "; secondary regression blocks: " + ", ".join(blocking)
    return GateDecision(gate, passed, evidence, p, secondary, blocking)
