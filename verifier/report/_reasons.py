"""Why each claim did not pass across a run: its most common reasons, with counts.

Reasons that differ only in their numbers (``pattern not found in output (258
chars)``, ``(47 chars)``) are one reason, shown with ``N`` for the numbers that differ. Memory is
bounded by the claims and ``MAX_DISTINCT`` reasons each; later new reasons of a claim
are counted among its other reasons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifier.report._failures import one_line
from verifier.results import CaseResult

__all__ = ["MAX_DISTINCT", "ClaimReasons", "ReasonTally", "TopReason"]

MAX_DISTINCT = 200
"""Distinct reasons counted per claim."""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SHOWN_CHARS = 160


@dataclass(frozen=True, slots=True)
class TopReason:
    """One reason and how many results gave it."""

    reason: str
    count: int


@dataclass(frozen=True, slots=True)
class ClaimReasons:
    """A claim's top reasons, and the results that gave any other."""

    claim_id: str
    top: tuple[TopReason, ...]
    others: int


@dataclass(slots=True)
class _Group:
    """Reasons equal but for their numbers: the first, and which of its numbers vary."""

    first: str
    count: int = 0
    varies: set[int] = field(default_factory=set)

    def add(self, text: str) -> None:
        self.count += 1
        if self.count > 1 and text != self.first:
            # Not strict: a reason with a letter N where another has a number shares
            # its key but not its count of numbers.
            pairs = zip(_NUMBER.findall(self.first), _NUMBER.findall(text), strict=False)
            self.varies.update(i for i, (a, b) in enumerate(pairs) if a != b)

    @property
    def shown(self) -> str:
        """The first reason, with ``N`` for each number the others gave differently."""
        if not self.varies:
            return self.first
        numbers = iter(range(len(self.first)))
        return _NUMBER.sub(lambda m: "N" if next(numbers) in self.varies else m[0], self.first)


@dataclass(slots=True)
class ReasonTally:
    """Counts the reasons of every result that failed or errored, per claim."""

    claims: dict[str, dict[str, _Group]] = field(default_factory=dict)
    overflow: dict[str, int] = field(default_factory=dict)

    def add(self, case: CaseResult) -> None:
        """Counts the fail and error reasons of one case."""
        culprits = [r for r in case.results if r.status in ("fail", "error")]
        if len(culprits) > 1 and len({(r.status, r.reason) for r in culprits}) == 1:
            # An unusable case line gives every claim the same error: one reason of
            # the line, not one per claim (as the failing cases list it).
            every = len(culprits) == len(case.results)
            label = "(every claim)" if every else f"({len(culprits)} claims)"
            self._count(label, culprits[0].status, culprits[0].reason)
            return
        for result in culprits:
            self._count(result.claim_id, result.status, result.reason)

    def _count(self, claim_id: str, status: str, reason: str) -> None:
        text = one_line(reason, _SHOWN_CHARS)
        key = f"{status}\0{_NUMBER.sub('N', text)}"
        groups = self.claims.setdefault(claim_id, {})
        group = groups.get(key)
        if group is None:
            if len(groups) >= MAX_DISTINCT:
                self.overflow[claim_id] = self.overflow.get(claim_id, 0) + 1
                return
            group = groups[key] = _Group(text)
        group.add(text)

    def top(self, limit: int = 3) -> list[ClaimReasons]:
        """Each claim's ``limit`` most common reasons, in the order claims first failed."""
        out = []
        for claim_id, groups in self.claims.items():
            ranked = sorted(groups.items(), key=lambda item: -item[1].count)
            top = tuple(TopReason(g.shown, g.count) for _, g in ranked[:limit])
            rest = sum(g.count for _, g in ranked[limit:]) + self.overflow.get(claim_id, 0)
            out.append(ClaimReasons(claim_id, top, rest))
        return out
