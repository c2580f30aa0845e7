"""Results of a run as the runner hands them to reports: per case, per claim, per run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

RowStatus = Literal["pass", "fail", "error", "skipped"]
RowKind = Literal["rubric", "judge", "comparative", "imported"]


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """One claim checked against one case (one gap row)."""

    claim_id: str
    kind: RowKind
    status: RowStatus
    score: float | None
    reason: str
    evidence: dict[str, Any]


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
    """

    case_id: str
    line: int
    results: tuple[ClaimResult, ...]
    score: float
    passed: bool
    content: Mapping[str, Any] | None = None

    def count(self, status: RowStatus) -> int:
        return sum(1 for r in self.results if r.status == status)

    def claim(self, claim_id: str) -> ClaimResult:
        """The result of the claim ``claim_id``.

        Raises:
            KeyError: The contract has no claim with that id.
        """
        for result in self.results:
            if result.claim_id == claim_id:
                return result
        raise KeyError(claim_id)


@dataclass(slots=True)
class ClaimTally:
    """Counts of one claim's statuses across the run."""

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0

    def add(self, status: RowStatus) -> None:
        if status == "pass":
            self.passed += 1
        elif status == "fail":
            self.failed += 1
        elif status == "error":
            self.errors += 1
        else:
            self.skipped += 1

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors + self.skipped

    @property
    def pass_rate(self) -> float:
        """Passes over every result of the claim (0.0 when it has none)."""
        return self.passed / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "pass_rate": round(self.pass_rate, 6),
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "skipped": self.skipped,
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
        for result in case.results:
            self.breakdown.setdefault(result.claim_id, ClaimTally()).add(result.status)


def judge_usage_text(usage: dict[str, int]) -> str:
    """One line on a run's judge calls and tokens, from ``RunSummary.judge_usage``."""
    u = usage
    return (
        f"judge calls: {u['calls']} made, {u['cached']} from cache, {u['failed']} failed; "
        f"tokens: {u['input_tokens']} in, {u['output_tokens']} out, "
        f"{u['cache_read_input_tokens']} cache-read"
    )
