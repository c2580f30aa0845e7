"""A judge phase's call counters: the model calls' own, and its pairwise comparisons."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.llm.calls import CallStats


@dataclass(slots=True)
class JudgeStats(CallStats):
    """``CallStats`` plus the pairwise comparisons made and how often the order flipped."""

    pairwise: int = 0
    position_flips: int = 0

    def own_counts(self) -> dict[str, Any]:
        """The pairwise counters, under the names the summary shows them."""
        return {"pairwise_comparisons": self.pairwise, "position_flips": self.position_flips}
