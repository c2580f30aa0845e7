"""Two runs' rows met case by case, in case id order: the merge join comparisons pair on.

Each run is read through ``GapStore.iter_rows_by_case`` (its rows ordered by
``(case_id, seq)`` through the store's case index, a page at a time), cut into cases,
and the two sequences of cases are merged as sorted lists are: a case id present in
both runs yields both cases' rows together, one present in one run yields it alone.
Nothing is held but the case at hand on each side and what ``RunSide`` counts, so
pairing two runs takes the same memory at a thousand results as at ten million.

A case's rows are read as every comparison reads them: from the row bodies (the
hash-chained truth ``verifier audit`` checks), one outcome per claim, the first row
(lowest seq) of a claim repeated in the case used and the rest counted as duplicates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import Any

import orjson

from verifier.compare.judge_changes import JudgesSeen
from verifier.findings_tally import FindingsTally, is_findings_row
from verifier.gaps.records import StoredRow, StoreError
from verifier.results import ClaimTally, stored_outcome

__all__ = ["NOT_APPLICABLE", "CaseRows", "Outcome", "RunSide", "merge_cases"]

NOT_APPLICABLE = "not applicable"
"""The status a row is paired under when its claim did not apply to the case."""

Outcome = tuple[str, float, int]
"""A claim's outcome in a case: ``(status, score, seq)``; the status is a row status or
``NOT_APPLICABLE``, and a score the row lacks is 1 for a pass, else 0."""

CaseRows = dict[str, Outcome]
"""One run's outcomes of one case, by claim id, in the order of their rows."""


@dataclass(slots=True)
class RunSide:
    """What one run's rows say besides the pairs, counted as its cases stream past.

    Attributes:
        tallies: Each claim's tally over every row of the run, as its report counts.
        findings: Each findings claim's micro and macro counts, as its report counts.
        judges: The judges its verdicts were given by.
        first_seq: Each claim's first row, which orders the claims as the run did.
        duplicates: Rows repeating a ``(case_id, claim_id)`` already read.
    """

    tallies: dict[str, ClaimTally] = field(default_factory=dict)
    findings: dict[str, FindingsTally] = field(default_factory=dict)
    judges: JudgesSeen = field(default_factory=JudgesSeen)
    first_seq: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0

    def cases(self, rows: Iterable[StoredRow]) -> Iterator[tuple[str, CaseRows]]:
        """``(case_id, outcomes)`` per case of ``rows``, which come in case id order.

        Raises:
            StoreError: The rows are not in case id order.
        """
        last: str | None = None
        for case_id, group in groupby(rows, attrgetter("case_id")):
            if last is not None and case_id <= last:
                raise StoreError(f"rows came out of case order ({case_id!r} after {last!r})")
            last = case_id
            yield case_id, self._read(group)

    def _read(self, rows: Iterable[StoredRow]) -> CaseRows:
        held: CaseRows = {}
        for row in rows:
            body = orjson.loads(row.body)
            claim_id, outcome = self._outcome(body, row.seq)
            self.judges.note(body, claim_id)
            if claim_id in held:
                self.duplicates += 1
                continue
            held[claim_id] = outcome
        return held

    def _outcome(self, body: dict[str, Any], seq: int) -> tuple[str, Outcome]:
        """A row's claim and outcome, read as every tally reads a stored row
        (``results.stored_outcome``: a bad status is an error), and counted."""
        status, not_applicable, score = stored_outcome(body)
        claim_id = str(body.get("claim_id"))
        tally = self.tallies.get(claim_id)
        if tally is None:
            tally = self.tallies[claim_id] = ClaimTally()
        first = self.first_seq.get(claim_id)
        if first is None or seq < first:
            self.first_seq[claim_id] = seq
        tally.add(status, not_applicable, score)
        evidence = body.get("evidence")
        if is_findings_row(evidence):
            self.findings.setdefault(claim_id, FindingsTally()).add(status, evidence)
        if score is None:
            score = 1.0 if status == "pass" else 0.0
        return claim_id, (NOT_APPLICABLE if not_applicable else status, score, seq)

    def claim_order(self) -> dict[str, None]:
        """The run's claims in the order of their first rows."""
        return dict.fromkeys(sorted(self.first_seq, key=self.first_seq.__getitem__))

    def ordered_tallies(self) -> dict[str, ClaimTally]:
        """``tallies``, its claims in the order of their first rows."""
        return {claim: self.tallies[claim] for claim in self.claim_order()}


def merge_cases(
    baseline: Iterator[tuple[str, CaseRows]], candidate: Iterator[tuple[str, CaseRows]]
) -> Iterator[tuple[str, CaseRows | None, CaseRows | None]]:
    """``(case_id, baseline's rows, candidate's rows)`` per case id of either run, in
    case id order; ``None`` for the run without the case."""
    a, b = next(baseline, None), next(candidate, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            assert a is not None
            yield a[0], a[1], None
            a = next(baseline, None)
        elif a is None or b[0] < a[0]:
            yield b[0], None, b[1]
            b = next(candidate, None)
        else:
            yield a[0], a[1], b[1]
            a, b = next(baseline, None), next(candidate, None)
