"""A judge phase's call counters: the model calls' own, and its pairwise comparisons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.llm.calls import CallStats


@dataclass(slots=True)
class JudgeStats(CallStats):
    """``CallStats`` plus the pairwise comparisons made and how often the order flipped."""

    pairwise: int = 0
    position_flips: int = 0
    # claim id -> [comparisons decided, of which the judge followed the position]
    by_claim: dict[str, list[int]] = field(default_factory=dict)

    def compared(self, claim_id: str, *, inconsistent: bool) -> None:
        """Counts one decided pairwise comparison of ``claim_id``."""
        counts = self.by_claim.setdefault(claim_id, [0, 0])
        counts[0] += 1
        counts[1] += inconsistent
        self.position_flips += inconsistent

    def own_counts(self) -> dict[str, Any]:
        """The pairwise counters, under the names the summary shows them."""
        return {"pairwise_comparisons": self.pairwise, "position_flips": self.position_flips}

    def position_warnings(self) -> list[str]:
        """One line per pairwise claim whose judge followed the position in most of its
        comparisons: each such comparison is a tie, which passes, so the claim's passes
        say little about the outputs."""
        return [
            f"claim {claim_id}: the judge chose by position, not content, in {flips} of "
            f"{count} comparisons; each counts as a tie, which passes, so these passes say "
            "little about the outputs (check the judge's prompt and model)"
            for claim_id, (count, flips) in self.by_claim.items()
            if flips * 2 > count
        ]
