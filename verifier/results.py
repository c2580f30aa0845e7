"""Results of a run as the runner hands them to reports: per case, per claim, per run."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from verifier.findings_tally import FindingsTally, is_findings_row
from verifier.judge_summary import JudgeClaimsNotRun, judge_usage_text
from verifier.overall import CaseOverall, OverallTally

RowStatus = Literal["pass", "fail", "error", "skipped"]
RowKind = Literal["rubric", "judge", "comparative", "imported"]

NOT_APPLICABLE = "not_applicable"
"""The evidence key of a row whose claim did not apply to the case (its ``when:`` path
found nothing there); its value is that path. Such a row is ``skipped`` and, unlike a
claim skipped for a failed gate, is left out of the case's score and of pass rates."""


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """One claim checked against one case (one gap row)."""

    claim_id: str
    kind: RowKind
    status: RowStatus
    score: float | None
    reason: str
    evidence: dict[str, Any]


_new_object = object.__new__
# The slots' own setters: a frozen dataclass's __init__ goes through
# object.__setattr__ for each field, which costs twice as much.
_SET_RESULT = tuple(
    ClaimResult.__dict__[name].__set__
    for name in ("claim_id", "kind", "status", "score", "reason", "evidence")
)


def claim_result(
    claim_id: str,
    kind: RowKind,
    status: RowStatus,
    score: float | None,
    reason: str,
    evidence: dict[str, Any],
) -> ClaimResult:
    """``ClaimResult(claim_id, kind, status, score, reason, evidence)``, built at half
    the cost: the runner makes one for every claim of every case."""
    result = _new_object(ClaimResult)
    set_id, set_kind, set_status, set_score, set_reason, set_evidence = _SET_RESULT
    set_id(result, claim_id)
    set_kind(result, kind)
    set_status(result, status)
    set_score(result, score)
    set_reason(result, reason)
    set_evidence(result, evidence)
    return result


@dataclass(frozen=True, slots=True)
class CaseResult:
    """Every claim of the contract checked against one case.

    Attributes:
        case_id: The case's ``id`` (or ``line-N`` when the line had none).
        line: 1-based line of the case in its JSONL file.
        results: One result per claim, in contract order.
        score: Weighted passes over the weighted total (errors and skips are not passes).
        passed: ``score >= threshold`` and no result is an error.
        content: The case as its content record keeps it (what a policy redacts as
            its marker), or ``None`` when the run stores no content or the case
            came back from the store (a resumed run).
        overall: The mean of its scale claims' scores on their scale, when the
            contract asks for it (``overall:``); ``None`` when it does not.
    """

    case_id: str
    line: int
    results: tuple[ClaimResult, ...]
    score: float
    passed: bool
    content: Mapping[str, Any] | None = None
    overall: CaseOverall | None = None

    def count(self, status: RowStatus) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def applicable(self) -> int:
        """How many claims applied to the case (all but those whose ``when`` path the
        case lacks)."""
        return sum(1 for r in self.results if not is_not_applicable(r.status, r.evidence))

    def claim(self, claim_id: str) -> ClaimResult:
        """The result of the claim ``claim_id``.

        Raises:
            KeyError: The contract has no claim with that id.
        """
        for result in self.results:
            if result.claim_id == claim_id:
                return result
        raise KeyError(claim_id)


def not_applicable_result(claim_id: str, kind: RowKind, when: str) -> ClaimResult:
    """The ``skipped`` row of a claim whose ``when`` path the case does not have."""
    return ClaimResult(
        claim_id,
        kind,
        "skipped",
        None,
        f"not applicable: the case has no {when}",
        {NOT_APPLICABLE: when},
    )


def is_not_applicable(status: str, evidence: Mapping[str, Any]) -> bool:
    """Whether a row (its status and evidence) is a claim that did not apply to its case."""
    return status == "skipped" and NOT_APPLICABLE in evidence


def row_not_applicable(body: Any) -> bool:
    """``is_not_applicable`` of a stored row's body (a dict read from the store)."""
    if not isinstance(body, Mapping):
        return False
    evidence = body.get("evidence")
    return isinstance(evidence, Mapping) and is_not_applicable(str(body.get("status")), evidence)


@dataclass(slots=True)
class ClaimTally:
    """Counts of one claim's statuses across the run.

    A claim's pass rate is its passes over its checked results: passes, fails and
    errors (a check that could not be had is not a pass). Skipped results were not
    checked (a gate that did not pass, judges off, a case the claim did not apply to)
    and are left out; a claim with no checked result has no pass rate, rather than a
    rate of 0. Every report and the audit's trends count so.

    Attributes:
        not_applicable: Of the skipped results, those of cases the claim did not apply
            to (its ``when`` path missing).
    """

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    not_applicable: int = 0
    score_sum: float = 0.0
    """Sum of the checked results' scores (``checked_score``), for ``mean_score``."""

    def add(
        self, status: RowStatus, not_applicable: bool = False, score: float | None = None
    ) -> None:
        """Counts one result; ``score`` is its stored score, if it has one."""
        if status == "pass":
            self.passed += 1
            self.score_sum += 1.0 if score is None else score
        elif status == "fail":
            self.failed += 1
            if score is not None:
                self.score_sum += score
        elif status == "error":
            self.errors += 1
        else:
            self.skipped += 1
            self.not_applicable += not_applicable

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.skipped

    @property
    def applicable(self) -> int:
        """Results of the cases the claim applied to (all but the not-applicable ones)."""
        return self.total - self.not_applicable

    @property
    def checked(self) -> int:
        """Results that count in the pass rate: every one but the skipped ones."""
        return self.passed + self.failed + self.errors

    @property
    def pass_rate(self) -> float | None:
        """Passes over the checked results (``None`` when none was checked)."""
        return self.passed / self.checked if self.checked else None

    @property
    def mean_score(self) -> float | None:
        """Mean score of the checked results (``None`` when none was checked): a pass
        without a score counts 1, a fail without one 0, an error 0."""
        return self.score_sum / self.checked if self.checked else None

    def counts_text(self) -> str:
        """The counts a rate rests on, as every surface prints them beside it:
        ``4 passed of 5 checked; 1 skipped, 0 errors``."""
        return (
            f"{self.passed} passed of {self.checked} checked; {self.skipped_text} skipped, "
            f"{self.errors} error{'' if self.errors == 1 else 's'}"
        )

    def rate_with_counts(self) -> str:
        """``80.0% (4 passed of 5 checked; 1 skipped, 0 errors)``, or ``—`` with its counts."""
        return f"{rate_text(self.pass_rate)} ({self.counts_text()})"

    def rate_in_brief(self) -> str:
        """``60.0% (3 of 5 checked)``, with ``, 1 skipped`` and ``, 1 error`` when there are
        any: the short form beside many rates on one line."""
        extra = "".join(
            f", {n} {word}{'' if n == 1 or word == 'skipped' else 's'}"
            for n, word in ((self.skipped, "skipped"), (self.errors, "error"))
            if n
        )
        return f"{rate_text(self.pass_rate)} ({self.passed} of {self.checked} checked{extra})"

    @property
    def skipped_text(self) -> str:
        """The skipped count as reports show it: ``5 (3 n/a)`` when some were skipped
        because the claim did not apply to the case."""
        if not self.not_applicable:
            return str(self.skipped)
        return f"{self.skipped} ({self.not_applicable} n/a)"

    def as_dict(self) -> dict[str, Any]:
        rate = self.pass_rate
        out: dict[str, Any] = {
            "pass_rate": None if rate is None else round(rate, 6),
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
        }
        if self.not_applicable:  # a run without `when` keeps the record it always had
            out["not_applicable"] = self.not_applicable
        return out


def stored_outcome(body: Any) -> tuple[RowStatus, bool, float | None]:
    """``(status, not applicable, score)`` of a stored row's body, as tallies count it:
    a status that is none of the four is an ``error`` (nothing can vouch for it), a
    score that is not a number is none."""
    if not isinstance(body, Mapping):
        return "error", False, None
    raw = body.get("status")
    status: RowStatus = raw if raw in ("pass", "fail", "error", "skipped") else "error"
    score = body.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        score = None
    return status, row_not_applicable(body), None if score is None else float(score)


def tally_rows(bodies: Iterable[Any]) -> dict[str, ClaimTally]:
    """Every claim's tally over stored row bodies, in the order claims first appear:
    the same counts a run's own report makes, for surfaces that read a store."""
    tallies: dict[str, ClaimTally] = {}
    for body in bodies:
        claim = str(body.get("claim_id")) if isinstance(body, Mapping) else "?"
        tally = tallies.get(claim)
        if tally is None:
            tally = tallies[claim] = ClaimTally()
        tally.add(*stored_outcome(body))
    return tallies


PASS_RATE_NOTE = "pass rate: passes over the results checked (skips left out)"
"""What reports say under a table of pass rates where some results were skipped."""


def rate_text(rate: float | None) -> str:
    """A pass rate as reports show it: ``83.3%``, or ``—`` when there is none."""
    return "—" if rate is None else f"{rate:.1%}"


_Z95 = 1.959963984540054
"""The two-sided normal quantile of 95% confidence (``NormalDist().inv_cdf(0.975)``)."""


def wilson_95(successes: int, n: int) -> tuple[float, float]:
    """Wilson's score interval at 95% for ``successes`` of ``n`` (``[0, 1]`` when n is 0).

    Here at the bottom of the package so that every report shows the same figure;
    ``verifier.compare.stats.wilson_interval`` takes any confidence level.
    """
    if n == 0:
        return 0.0, 1.0
    p, z2 = successes / n, _Z95 * _Z95
    centre = (2 * n * p + z2) / (2 * (n + z2))
    half = _Z95 * math.sqrt(z2 + 4 * n * p * (1 - p)) / (2 * (n + z2))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(slots=True)
class JudgeNoise:
    """How noisy one judged claim's verdicts were over a run.

    Attributes:
        verdicts: Results that are a verdict (pass or fail; errors and skips are not).
        passed: Of those, passes.
        pairwise: Pairwise comparisons asked in both orders.
        flips: Of those, comparisons whose winner followed the position, not the content.
        sampled: Verdicts combined from ``samples > 1``.
        sample_agreement_sum: Sum of their agreement rates (the share of a verdict's
            samples that sided with its majority).
        served_other: Verdicts given by a model other than the one asked for.
        served_as: The last such pair, ``{"served": ..., "asked_for": ...}``.
    """

    verdicts: int = 0
    passed: int = 0
    pairwise: int = 0
    flips: int = 0
    sampled: int = 0
    sample_agreement_sum: float = 0.0
    served_other: int = 0
    served_as: dict[str, str] | None = None

    def add(self, status: str, evidence: Mapping[str, Any]) -> None:
        """Counts one result of the claim: its status and what its evidence says."""
        if status not in ("pass", "fail"):
            return
        self.verdicts += 1
        self.passed += status == "pass"
        inconsistent = evidence.get("inconsistent")
        if isinstance(inconsistent, bool):
            self.pairwise += 1
            self.flips += inconsistent
        agreement = evidence.get("agreement_rate")
        if isinstance(agreement, int | float) and not isinstance(agreement, bool):
            self.sampled += 1
            self.sample_agreement_sum += float(agreement)
        mismatch = evidence.get("served_mismatch")
        if isinstance(mismatch, dict):
            self.served_other += 1
            self.served_as = {k: str(mismatch.get(k)) for k in ("served", "asked_for")}

    def as_dict(self) -> dict[str, Any]:
        """The figures as reports show them (rates ``None`` where nothing was measured)."""
        low, high = wilson_95(self.passed, self.verdicts)
        return {
            "verdicts": self.verdicts,
            "pass_rate": round(self.passed / self.verdicts, 6) if self.verdicts else None,
            "pass_rate_ci95": [round(low, 6), round(high, 6)],
            "pairwise": self.pairwise,
            "position_flips": self.flips,
            "flip_rate": round(self.flips / self.pairwise, 6) if self.pairwise else None,
            "sampled": self.sampled,
            "sample_agreement": (
                round(self.sample_agreement_sum / self.sampled, 6) if self.sampled else None
            ),
            "served_other": self.served_other,
            "served_mismatch": self.served_as,
        }


@dataclass(slots=True)
class RunSummary:
    """Totals of a finished (or interrupted) run.

    Attributes:
        claim_lines: Line of each claim in the contract file (for annotations).
        breakdown: Tally per claim id, in contract order.
    """

    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    contract_path: str
    threshold: float
    started_at: str
    finished_at: str = ""
    total_cases: int = 0
    passed_cases: int = 0
    failed_cases: int = 0
    score_sum: float = 0.0
    breakdown: dict[str, ClaimTally] = field(default_factory=dict)
    claim_lines: dict[str, int] = field(default_factory=dict)
    store: str = ""
    interrupted: bool = False
    judge_usage: dict[str, int] | None = None
    """Judge calls made, cached, failed and retried, and tokens used (None: no judges)."""
    head: str | None = None
    """The store's head once the run's end was sealed (``verifier audit --expect-head``)."""
    warnings: list[str] = field(default_factory=list)
    """Problems of the contract the run revealed (a field path missing in every case)."""
    judge_noise: dict[str, JudgeNoise] = field(default_factory=dict)
    """Per judged claim (judge claims and pairwise comparisons), how noisy its judge was."""
    judge_claims_not_run: JudgeClaimsNotRun = field(default_factory=JudgeClaimsNotRun)
    """The claims needing a judge that the run left out on purpose, and why."""
    overall: OverallTally | None = None
    """The mean overall and the cases to revise, when the contract asks (``overall:``)."""
    findings: dict[str, FindingsTally] = field(default_factory=dict)
    """Per findings claim, its counts for the run's micro and macro averages."""

    def findings_dict(self) -> dict[str, dict[str, Any]]:
        """``findings`` as reports and the run record keep it."""
        return {claim_id: tally.as_dict() for claim_id, tally in self.findings.items()}

    def judge_noise_dict(self) -> dict[str, dict[str, Any]]:
        """``judge_noise`` as reports and the run record keep it."""
        return {claim_id: noise.as_dict() for claim_id, noise in self.judge_noise.items()}

    def judge_usage_line(self) -> str | None:
        """One line on what the judges cost, or ``None`` for runs without judges."""
        return None if self.judge_usage is None else judge_usage_text(self.judge_usage)

    @property
    def average_score(self) -> float:
        return self.score_sum / self.total_cases if self.total_cases else 0.0

    def add_case(self, case: CaseResult) -> None:
        self.total_cases += 1
        self.score_sum += case.score
        if case.passed:
            self.passed_cases += 1
        else:
            self.failed_cases += 1
        if self.overall is not None and case.overall is not None:
            self.overall.add(case.case_id, case.overall)
        breakdown = self.breakdown
        for result in case.results:
            # Looked up before made: this runs for every claim of every case.
            tally = breakdown.get(result.claim_id)
            if tally is None:
                tally = breakdown[result.claim_id] = ClaimTally()
            tally.add(
                result.status, is_not_applicable(result.status, result.evidence), result.score
            )
            # A judged result carries its judge's triple; a rubric or deterministic
            # comparison has none and no noise to measure.
            if "judge" in result.evidence:
                noise = self.judge_noise.setdefault(result.claim_id, JudgeNoise())
                noise.add(result.status, result.evidence)
            elif "match_on" in result.evidence and is_findings_row(result.evidence):
                tally_of = self.findings.setdefault(result.claim_id, FindingsTally())
                tally_of.add(result.status, result.evidence)
