"""A stored run's cases read back from its rows, for a resumed run and for CI outputs.

A resumed run reports the cases it had already stored as they were, and checks only
the others; ``verifier run --resume`` and the CI outputs made from a store
(``verifier.ci.from_store``) rebuild those cases here from the gap rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from verifier.canonical import loads_exact
from verifier.gaps.store import GapStore
from verifier.plan import Plan, score_case
from verifier.results import CaseResult, ClaimResult


def stored_cases(
    store: GapStore, run_id: str, plan: Plan, threshold: float
) -> Iterator[CaseResult]:
    """The run's cases whose rows cover every claim, rebuilt from their rows, as stored.

    A case is known by its line (the row id is ``RUN:LINE:CLAIM``), not by its id:
    two lines may report the same id (a case named ``line-3`` beside the unusable
    line 3), and each is a case of its own. Rows are streamed, so memory holds one
    case at a time.
    """
    ids = [p.id for p in plan.order]
    prefix = f"{run_id}:"
    line, case_id = -1, ""
    results: dict[str, ClaimResult] = {}
    for row in store.iter_rows(run_id):
        row_line = _line_of(row.row_id, prefix)
        if row_line != line or row.case_id != case_id:
            if results:
                done = _complete(plan, ids, case_id, line, results, threshold)
                if done is not None:
                    yield done
            line, case_id, results = row_line, row.case_id, {}
        body: dict[str, Any] = loads_exact(row.body)
        results[row.claim_id] = ClaimResult(
            claim_id=row.claim_id,
            kind=body["kind"],
            status=body["status"],
            score=body["score"],
            reason=str(body["reason"]),
            evidence=body["evidence"],
        )
    if results:
        done = _complete(plan, ids, case_id, line, results, threshold)
        if done is not None:
            yield done


def _line_of(row_id: str, prefix: str) -> int:
    line = row_id.removeprefix(prefix).partition(":")[0]
    return int(line) if line.isdigit() else 0


def _complete(
    plan: Plan,
    ids: list[str],
    case_id: str,
    line: int,
    results: dict[str, ClaimResult],
    threshold: float,
) -> CaseResult | None:
    if not all(claim_id in results for claim_id in ids):
        return None
    case_score, ok = score_case(plan, results, threshold)
    return CaseResult(case_id, line, tuple(results[c] for c in ids), case_score, ok)


class StoredReplay:
    """What a resumed run already stored, handed back as the run reaches each case.

    Chunks are stored whole and in line order, so the stored cases come back from
    the store in the order the cases file yields them: the two are merged as the run
    goes, and a resume reads nothing up front (its cost no longer grows with what the
    run stored) and keeps one stored case in memory rather than all of them.
    """

    def __init__(self, cases: Iterator[CaseResult]) -> None:
        self._cases = cases
        self._next: CaseResult | None = None
        self._started = False
        self._rest: dict[int, CaseResult] | None = None

    def take(self, line: int, case_id: str) -> CaseResult | None:
        """The stored case of ``line`` if it is ``case_id``'s, else ``None`` (check it).

        Lines must be asked about in increasing order.
        """
        if self._rest is not None:
            found = self._rest.get(line)
            if found is None or found.case_id != case_id:
                return None
            del self._rest[line]
            return found
        if not self._started:
            self._started = True
            self._next = next(self._cases, None)
        # A stored line the run no longer reaches (skipped above it) is not reported.
        while self._next is not None and self._next.line < line:
            self._next = next(self._cases, None)
        found = self._next
        if found is None or found.line != line or found.case_id != case_id:
            return None
        self._next = next(self._cases, None)
        return found

    def settle(self) -> None:
        """Reads the rest of the stored cases into memory unless all have been taken.

        Called before the run writes: a read left open across a write would hold
        the store's snapshot (and a SQLite connection's transaction) meanwhile. Only
        a run whose stored cases are not a prefix of its lines has any left.
        """
        if self._rest is not None or (self._started and self._next is None):
            return
        if not self._started:
            self._started = True
            self._next = next(self._cases, None)
        left = [] if self._next is None else [self._next, *self._cases]
        self._rest = {case.line: case for case in left}
        self._next = None

    @property
    def exhausted(self) -> bool:
        """Whether every stored case has been handed back or passed by."""
        if self._rest is not None:
            return not self._rest
        return self._started and self._next is None

    def close(self) -> None:
        """Ends the read of the store, if one is still open."""
        close = getattr(self._cases, "close", None)
        if close is not None:
            close()
