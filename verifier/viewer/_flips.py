"""The cases whose verdict on a claim flipped between two runs, a page at a time.

A flip is a pair ``verifier compare`` counts as discordant: the same ``(case_id,
claim_id)`` passed in one run and failed in the other. Rows are paired as
``verifier.compare.runs`` pairs them (from the row bodies, the first row of a
repeated pair, errors, skips and claims that did not apply left out), so the flips
of a claim are exactly its ``baseline_only + candidate_only`` pairs.

Flips come in case id order (a case's flips in the order of its rows), as the merge
join of the two runs meets them (``changed_pairs``), so a page of them is read from
where the page begins to where it ends, and no further: the first page of two runs of
a million results each reads a few hundred cases. The next page resumes from the last
flip shown (``FlipCursor``: its case id and claim, keyset pagination, no offset).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from verifier.compare.merge import Outcome
from verifier.compare.runs import changed_pairs
from verifier.gaps.store import GapStore

__all__ = ["Flip", "FlipCursor", "FlipDirection", "FlipPage", "as_flip", "flip_page"]

FlipDirection = Literal["regressed", "fixed"]
"""``regressed``: passed in run A, failed in run B; ``fixed``: the other way."""

_VERDICTS = ("pass", "fail")


@dataclass(frozen=True, slots=True)
class Flip:
    """One case whose verdict on one claim flipped.

    Attributes:
        claim_id: The claim.
        case_id: The case.
        direction: ``regressed`` (pass in A, fail in B) or ``fixed`` (fail in A, pass in B).
        baseline_seq: The row of run A.
        candidate_seq: The row of run B.
    """

    claim_id: str
    case_id: str
    direction: FlipDirection
    baseline_seq: int
    candidate_seq: int


def as_flip(case_id: str, claim_id: str, base: Outcome, cand: Outcome) -> Flip | None:
    """The flip a pair of outcomes is (``changed_pairs``' ``on_pair`` arguments), or
    ``None`` when it is no flip (same status, or an error, skip or claim that did not
    apply on either side)."""
    if base[0] == cand[0] or base[0] not in _VERDICTS or cand[0] not in _VERDICTS:
        return None
    direction: FlipDirection = "regressed" if base[0] == "pass" else "fixed"
    return Flip(claim_id, case_id, direction, base[2], cand[2])


@dataclass(frozen=True, slots=True)
class FlipCursor:
    """Where a page of flips ends: its last flip's case and claim; the next page begins
    with the flip after it."""

    case_id: str
    claim_id: str


@dataclass(frozen=True, slots=True)
class FlipPage:
    """One page of the flips selected.

    Attributes:
        flips: The page's flips, in case id order.
        number: Which page it is (from 1).
        after: Where the page ends, when a flip follows it (``None``: the last page).
    """

    flips: tuple[Flip, ...]
    number: int
    after: FlipCursor | None


@dataclass(slots=True)
class _Pager:
    """Keeps the flips of page ``wanted`` (or of the last page, when there are fewer),
    told of the selected flips one by one; ``full`` once a flip past the page is seen."""

    size: int
    wanted: int
    number: int = 1
    held: list[Flip] = field(default_factory=list)
    full: bool = False

    def add(self, flip: Flip) -> None:
        if self.full:
            return
        if len(self.held) == self.size:
            if self.number == self.wanted:
                self.full = True
                return
            self.number += 1
            self.held = []
        self.held.append(flip)


@dataclass(slots=True)
class _Selection:
    """The flips of one claim and direction (any, for ``None``) past a cursor."""

    pager: _Pager
    claim: str | None
    direction: str | None
    after: FlipCursor | None

    def __call__(self, case_id: str, claim_id: str, base: Outcome, cand: Outcome) -> None:
        if self.after is not None:
            if case_id == self.after.case_id:
                # The cursor's case again: its flips up to the cursor's were shown.
                if claim_id == self.after.claim_id:
                    self.after = None
                return
            self.after = None
        flip = as_flip(case_id, claim_id, base, cand)
        if flip is None or (self.claim is not None and flip.claim_id != self.claim):
            return
        if self.direction is None or flip.direction == self.direction:
            self.pager.add(flip)


def flip_page(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    *,
    size: int,
    claim: str | None = None,
    direction: str | None = None,
    after: FlipCursor | None = None,
    number: int = 1,
) -> FlipPage:
    """A page of the flips of ``claim`` (every claim when ``None``) in ``direction``
    (both when ``None``), reading both runs only as far as the page and the flip after it.

    Args:
        store: The store holding both runs.
        baseline_id: Run A.
        candidate_id: Run B.
        size: Flips a page.
        claim: Only this claim's flips.
        direction: ``regressed`` or ``fixed``: only those flips.
        after: Begin after this flip (keyset); ``number`` is then only the page's name.
        number: Without ``after``: which page (from 1), read from the first flip on; a
            page past the last is the last.

    Raises:
        CompareError: A run is unknown, or the runs checked different contracts.
    """
    pager = _Pager(size, 1 if after is not None else number)
    selection = _Selection(pager, claim, direction, after)
    start = None if after is None else after.case_id
    for _ in changed_pairs(store, baseline_id, candidate_id, selection, start=start):
        if pager.full:
            break
    flips = tuple(pager.held)
    last = FlipCursor(flips[-1].case_id, flips[-1].claim_id) if pager.full else None
    return FlipPage(flips, number if after is not None else pager.number, last)
