"""The cases whose verdict on a claim flipped between two runs, and the comparison beside them.

A flip is a pair ``verifier compare`` counts as discordant: the same ``(case_id,
claim_id)`` passed in one run and failed in the other. Rows are paired as
``verifier.compare.runs`` pairs them (from the row bodies, the first row of a
repeated pair, errors, skips and claims that did not apply left out), so the flips
of a claim are exactly its ``baseline_only + candidate_only`` pairs.

Finding them is the comparison's own walk of both runs (``pair_runs``, a merge join
on case id that holds a case at a time), which tells each pair to the flips' collector
as it counts it. Runs that have ended do not change, so the comparison and its flips
are kept for a few pairs of runs (``DiffCache``): paging through the flips of a large
pair walks the runs once.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock
from typing import Literal

from verifier.compare.analysis import RunComparison, compare_paired
from verifier.compare.merge import Outcome
from verifier.compare.runs import PairedRuns, pair_runs
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage

__all__ = ["DiffCache", "Flip", "FlipDirection", "RunDiff", "diff_runs", "find_flips"]

FlipDirection = Literal["regressed", "fixed"]
"""``regressed``: passed in run A, failed in run B; ``fixed``: the other way."""


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


@dataclass(frozen=True, slots=True)
class RunDiff:
    """The paired statistics of two runs and their flips, regressions first per claim."""

    comparison: RunComparison
    flips: tuple[Flip, ...]

    def select(self, claim: str | None, direction: str | None) -> list[Flip]:
        """The flips of ``claim`` (every claim when ``None``) in ``direction`` (both when
        ``None``)."""
        return [
            f
            for f in self.flips
            if (claim is None or f.claim_id == claim)
            and (direction is None or f.direction == direction)
        ]


class _Flips:
    """Collects the flips among the pairs ``pair_runs`` is told of."""

    def __init__(self) -> None:
        self.found: list[Flip] = []

    def __call__(self, case_id: str, claim_id: str, base: Outcome, cand: Outcome) -> None:
        if base[0] == cand[0] or base[0] not in _VERDICTS or cand[0] not in _VERDICTS:
            return
        direction: FlipDirection = "regressed" if base[0] == "pass" else "fixed"
        self.found.append(Flip(claim_id, case_id, direction, base[2], cand[2]))

    def ordered(self, paired: PairedRuns) -> list[Flip]:
        """The flips by claim (run A's order), regressions first, then case id."""
        order = {claims.name: n for n, claims in enumerate(paired.claims)}
        return sorted(
            self.found, key=lambda f: (order[f.claim_id], f.direction != "regressed", f.case_id)
        )


_VERDICTS = ("pass", "fail")


def diff_runs(
    store: GapStore, baseline_id: str, candidate_id: str, *, lineage: Lineage | None = None
) -> RunDiff:
    """The comparison of two runs and their flips, from one walk of both runs.

    Memory: the runs stream case by case (``verifier.compare.merge``); the flips are kept.

    Raises:
        CompareError: A run is unknown, or the runs cannot be compared.
    """
    flips = _Flips()
    paired = pair_runs(store, baseline_id, candidate_id, lineage=lineage, on_pair=flips)
    return RunDiff(compare_paired(paired), tuple(flips.ordered(paired)))


def find_flips(store: GapStore, baseline_id: str, candidate_id: str) -> list[Flip]:
    """Every flip between two runs, ordered by claim (run A's order), regressions
    first, then case id."""
    return list(diff_runs(store, baseline_id, candidate_id).flips)


class DiffCache:
    """The last few diffs computed, by store and runs, reused while neither run changes.

    A key holds each run's status and row count, so a run still being written (or
    resumed) is diffed afresh on each request rather than served stale.
    """

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[object, ...], RunDiff] = OrderedDict()
        self._lock = Lock()

    def diff(
        self, store: GapStore, baseline_id: str, candidate_id: str, *, lineage: Lineage
    ) -> RunDiff:
        """The diff of two runs of ``store``, from the cache when still current (and
        the store's successions, ``lineage``, the same as when it was computed).

        Raises:
            CompareError: A run is unknown, or the runs cannot be compared.
        """
        key = (
            store.location,
            _state(store, baseline_id),
            _state(store, candidate_id),
            tuple(r.succession_id for r in lineage.rows),
        )
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        made = diff_runs(store, baseline_id, candidate_id, lineage=lineage)
        comparison = made.comparison
        if "running" in (comparison.paired.baseline.status, comparison.paired.candidate.status):
            return made
        with self._lock:
            self._entries[key] = made
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return made


def _state(store: GapStore, run_id: str) -> tuple[str, str | None, int | None]:
    record = store.run(run_id)
    if record is None:
        return (run_id, None, None)
    chain = record.chain_record
    return (run_id, record.status, chain.rows if chain else None)
