"""The comparison of two runs as JSON (``verifier compare --format json``)."""

from __future__ import annotations

from typing import Any

from verifier.compare.analysis import ClaimComparison, RunComparison
from verifier.compare.runs import RunInfo

__all__ = ["METHODS", "as_json", "overall_verdict"]

METHODS: dict[str, str] = {
    "pairing": "rows matched on (case_id, claim_id); error and skipped pairs left out",
    "difference_interval": "Newcombe (1998) square-and-add interval for paired proportions "
    "(method 10)",
    "test": "exact McNemar test (binomial test of the discordant pairs)",
    "correction": "Holm (1979) step-down across claims and whole cases; claims whose "
    "discordant pairs cannot reach alpha are left out (Tarone 1990)",
    "graded_scores": "Wilcoxon signed-rank test on exact paired score differences (scores "
    "read as the simplest fraction within 1e-9): zeros dropped, average ranks for ties, "
    "exact permutation distribution up to 50 nonzero pairs, above that the normal "
    "approximation with tie and continuity correction",
    "power": "exact power of the exact McNemar test at alpha with the pairs there are, at "
    "the observed discordant proportions",
    "cases_needed": "smallest number of paired cases at which the exact McNemar test "
    "reaches the stated power at alpha, at the observed discordant proportions "
    "(searched up to 10000)",
}


def _run_json(info: RunInfo) -> dict[str, Any]:
    return {
        "run_id": info.run_id,
        "contract": {
            "id": info.contract_id,
            "version": info.contract_version,
            "sha256": info.contract_sha256,
        },
        "status": info.status,
    }


def _claim_json(c: ClaimComparison) -> dict[str, Any]:
    t = c.table
    scores = None
    if c.scores is not None:
        scores = {
            "test": "wilcoxon signed-rank",
            "method": c.scores.method,
            "nonzero": c.scores.nonzero,
            "statistic": c.scores.statistic,
            "median_difference": c.scores.median_difference,
            "p_value": c.scores.p_value,
            "p_adjusted": c.scores.p_adjusted,
        }
    return {
        "claim": c.name,
        "pairs": t.pairs,
        "baseline": {"passed": t.baseline_passed, "pass_rate": t.baseline_rate},
        "candidate": {"passed": t.candidate_passed, "pass_rate": t.candidate_rate},
        "discordant": {"baseline_only": t.baseline_only, "candidate_only": t.candidate_only},
        "difference": t.difference,
        "ci95": list(c.interval),
        "p_value": c.p_value,
        "p_adjusted": c.p_adjusted,
        "verdict": c.verdict,
        "power": c.power,
        "cases_needed": c.cases_needed,
        "cases_needed_beyond": c.cases_needed_beyond,
        "can_reach_alpha": c.p_adjusted is not None,
        "excluded": {"error": c.errors, "skipped": c.skipped},
        "scores": scores,
    }


def overall_verdict(comparison: RunComparison) -> str:
    """``worse`` if anything is significantly worse, else ``better`` if anything is
    significantly better, else ``no detectable change``."""
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    if any(c.verdict == "worse" for c in every):
        return "worse"
    if any(c.verdict == "better" for c in every):
        return "better"
    return "no detectable change"


def as_json(comparison: RunComparison) -> dict[str, Any]:
    """The comparison as a JSON-ready dict (``verifier compare --format json``)."""
    paired = comparison.paired
    document: dict[str, Any] = {
        "baseline": _run_json(paired.baseline),
        "candidate": _run_json(paired.candidate),
        "verdict": overall_verdict(comparison),
        "worse": [c.name for c in comparison.worse],
        "alpha": comparison.alpha,
        "power": comparison.power,
        "min_discordant": comparison.min_discordant,
        "cases": {
            "paired": paired.paired_cases,
            "only_in_baseline": paired.cases_only_in_baseline,
            "only_in_candidate": paired.cases_only_in_candidate,
        },
        "claims_only_in_baseline": list(paired.claims_only_in_baseline),
        "claims_only_in_candidate": list(paired.claims_only_in_candidate),
        "duplicate_rows": dict(paired.duplicate_rows),
        "claims": [_claim_json(c) for c in comparison.claims],
        "overall": _claim_json(comparison.overall) if comparison.overall else None,
        "judge_changes": [c.as_json() for c in paired.judge_changes],
        "warnings": list(comparison.warnings),
        "methods": METHODS,
    }
    if any(paired.findings):  # each run's findings claims' micro and macro figures
        document["findings"] = {
            side: {claim: tally.as_dict() for claim, tally in tallies.items()}
            for side, tallies in zip(("baseline", "candidate"), paired.findings, strict=True)
        }
    return document
