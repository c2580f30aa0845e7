"""The first few failing cases of a run, kept for reports that list them."""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from verifier._internal.terminal import printable_line
from verifier.results import CaseResult, RowStatus

__all__ = ["FailingCase", "FailingCaseSample", "FailingClaim", "one_line", "output_excerpt"]

# A reason can quote a whole LLM output; reports that list failures show a sentence.
REASON_CHARS = 300
EXCERPT_CHARS = 100


@dataclass(frozen=True, slots=True)
class FailingClaim:
    """One claim that kept a case from passing."""

    claim_id: str
    status: RowStatus
    reason: str


@dataclass(frozen=True, slots=True)
class FailingCase:
    """A failed case with only what a failure listing shows (no evidence)."""

    case_id: str
    score: float
    claims: tuple[FailingClaim, ...]
    excerpt: str | None = None
    """The case's output on one line, cut (``None`` when the run keeps no content)."""


@dataclass(slots=True)
class FailingCaseSample:
    """Keeps the first ``limit`` failing cases and counts the rest.

    Memory is bounded by ``limit`` whatever the size of the run.
    """

    limit: int
    cases: list[FailingCase] = field(default_factory=list)
    total: int = 0

    @property
    def left_out(self) -> int:
        """Failing cases seen but not kept."""
        return self.total - len(self.cases)

    def add(self, case: CaseResult) -> None:
        """Counts ``case`` if it failed, and keeps it while there is room."""
        if case.passed:
            return
        self.total += 1
        if len(self.cases) < self.limit:
            self.cases.append(summarise_failure(case))


def summarise_failure(case: CaseResult) -> FailingCase:
    """Returns the claims that explain why ``case`` failed.

    Fails and errors explain it; when there are none the case fell below the
    threshold through skipped claims, so those are listed instead.
    """
    culprits = [r for r in case.results if r.status in ("fail", "error")]
    if not culprits:
        culprits = [r for r in case.results if r.status == "skipped"]
    if len(culprits) > 1 and len({(r.status, r.reason) for r in culprits}) == 1:
        # An unusable case line gives every claim the same error; say it once.
        first = culprits[0]
        label = (
            "(every claim)" if len(culprits) == len(case.results) else f"({len(culprits)} claims)"
        )
        return FailingCase(
            case.case_id,
            case.score,
            (FailingClaim(label, first.status, one_line(first.reason)),),
            output_excerpt(case),
        )
    claims = tuple(FailingClaim(r.claim_id, r.status, one_line(r.reason)) for r in culprits)
    return FailingCase(case.case_id, case.score, claims, output_excerpt(case))


def output_excerpt(case: CaseResult, limit: int = EXCERPT_CHARS) -> str | None:
    """The case's ``output`` on one line, cut to ``limit`` characters, with its length
    when cut (JSON for an output that is not text)."""
    content = case.content
    if content is None or "output" not in content:
        return None
    output = content["output"]
    if not isinstance(output, str):
        try:
            output = orjson.dumps(output).decode()
        except TypeError:
            return None
    flat = printable_line(" ".join(output.split()))
    if len(flat) <= limit:
        return flat
    return f"{flat[: limit - 1]}… ({len(output)} characters)"


def one_line(text: str, limit: int = REASON_CHARS) -> str:
    """Returns ``text`` on one line (whitespace runs collapsed, control characters
    escaped), cut to ``limit`` chars."""
    flat = printable_line(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
