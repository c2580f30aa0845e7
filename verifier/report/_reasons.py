"""Why each claim did not pass across a run: its most common reasons, with counts.

Reasons that differ only in their numbers (``pattern not found in output (258
chars)``, ``(47 chars)``) are one reason, shown with ``N`` for the numbers that differ.
Reasons that differ only in the id of the case that gave them (``no recorded verdict
on case late-parcel``, ``on case return-shoes``) are one reason too, shown with
``CASE`` for the id. Memory is bounded by the claims and ``MAX_DISTINCT`` reasons
each; later new reasons of a claim are counted among its other reasons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifier.report._failures import one_line
from verifier.results import CaseResult

__all__ = ["CASE_MARK", "MAX_DISTINCT", "ClaimReasons", "ReasonTally", "TopReason"]

MAX_DISTINCT = 200
"""Distinct reasons counted per claim."""
CASE_MARK = "CASE"
"""What a reason shows in place of the case ids that differ between its results."""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SHOWN_CHARS = 160
# Stands for a case's own id while reasons are compared: a private-use character, so
# no reason can hold it and no number pattern matches it.
_OWN_ID = "\ue000"


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


def _without_own_id(text: str, case_id: str) -> str:
    """``text`` with each whole-token occurrence of ``case_id`` as ``_OWN_ID``.

    A token is a run of word characters, ``-`` and inner ``.``: id ``acct-00`` is not
    found in ``acct-003`` nor ``parcel`` in ``late-parcel``. A numeric id is left to
    the grouping of numbers.
    """
    shown = one_line(case_id, _SHOWN_CHARS)
    if not shown or shown not in text or _NUMBER.fullmatch(shown):
        return text
    token = rf"(?<![\w.\-]){re.escape(shown)}(?![\w\-]|\.\w)"
    return re.sub(token, _OWN_ID, text)


@dataclass(slots=True)
class _Group:
    """Reasons equal but for their numbers and case ids: the first (its own case id as
    ``_OWN_ID``), which of its numbers vary, and whether the case ids do."""

    first: str
    first_case: str
    count: int = 0
    varies: set[int] = field(default_factory=set)
    ids_vary: bool = False

    def add(self, generic: str, case_id: str, named_own_id: bool) -> None:
        self.count += 1
        if self.count > 1 and generic != self.first:
            # Not strict: a reason with a letter N where another has a number shares
            # its key but not its count of numbers.
            pairs = zip(_NUMBER.findall(self.first), _NUMBER.findall(generic), strict=False)
            self.varies.update(i for i, (a, b) in enumerate(pairs) if a != b)
        if named_own_id and case_id != self.first_case:
            self.ids_vary = True

    @property
    def shown(self) -> str:
        """The first reason, with ``N`` for each number the others gave differently and
        ``CASE`` for its case id when the others named their own."""
        text = self.first
        if self.varies:
            numbers = iter(range(len(text)))
            text = _NUMBER.sub(lambda m: "N" if next(numbers) in self.varies else m[0], text)
        own = CASE_MARK if self.ids_vary else one_line(self.first_case, _SHOWN_CHARS)
        return text.replace(_OWN_ID, own)


@dataclass(slots=True)
class ReasonTally:
    """Counts the reasons of every result that failed or errored, per claim.

    Attributes:
        claims: Per claim, its reasons by key: the reason with its case's own id
            marked and its numbers as ``N``.
        plain: Per claim, a reason whose text named its case's id, by the key of its
            words as given: another case may give the same words, where the id was
            only a word of the reason (an id ``a`` in ``expected a value``).
    """

    claims: dict[str, dict[str, _Group]] = field(default_factory=dict)
    plain: dict[str, dict[str, _Group]] = field(default_factory=dict)
    overflow: dict[str, int] = field(default_factory=dict)

    def add(self, case: CaseResult) -> None:
        """Counts the fail and error reasons of one case."""
        culprits = [r for r in case.results if r.status in ("fail", "error")]
        if len(culprits) > 1 and len({(r.status, r.reason) for r in culprits}) == 1:
            # An unusable case line gives every claim the same error: one reason of
            # the line, not one per claim (as the failing cases list it).
            every = len(culprits) == len(case.results)
            label = "(every claim)" if every else f"({len(culprits)} claims)"
            self._count(label, culprits[0].status, culprits[0].reason, case.case_id)
            return
        for result in culprits:
            self._count(result.claim_id, result.status, result.reason, case.case_id)

    def _count(self, claim_id: str, status: str, reason: str, case_id: str) -> None:
        text = one_line(reason, _SHOWN_CHARS)
        generic = _without_own_id(text, case_id)
        named_own_id = generic != text
        groups = self.claims.setdefault(claim_id, {})
        plain = self.plain.setdefault(claim_id, {})
        key = f"{status}\0{_NUMBER.sub('N', generic)}"
        words = f"{status}\0{_NUMBER.sub('N', text)}" if named_own_id else key
        group = groups.get(key) or plain.get(key) or groups.get(words)
        if group is None:
            if len(groups) >= MAX_DISTINCT:
                self.overflow[claim_id] = self.overflow.get(claim_id, 0) + 1
                return
            group = groups[key] = _Group(generic, case_id)
            if named_own_id:
                plain[words] = group
        group.add(generic, case_id, named_own_id)

    def top(self, limit: int = 3) -> list[ClaimReasons]:
        """Each claim's ``limit`` most common reasons, in the order claims first failed."""
        out = []
        for claim_id, groups in self.claims.items():
            ranked = sorted(groups.items(), key=lambda item: -item[1].count)
            top = tuple(TopReason(g.shown, g.count) for _, g in ranked[:limit])
            rest = sum(g.count for _, g in ranked[limit:]) + self.overflow.get(claim_id, 0)
            out.append(ClaimReasons(claim_id, top, rest))
        return out
