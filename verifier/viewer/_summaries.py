"""The diff page's summary of two runs, computed in the background and kept.

The summary (the paired statistics of ``verifier compare`` and how many flips each
claim has, each way) needs a walk of both runs to their ends: seconds on runs of a
million results. So the page does not wait for it: the first request for a pair of
runs starts one task (``DiffSummaries``), later requests find it running, then done,
and are shown what it found or why it failed. One task runs per pair at a time, at
most ``WORKERS`` at once; the walk streams (``pair_runs``), so a task holds what the
statistics need, not the runs.

Runs that ended do not change, so a summary is kept (for the last ``size`` pairs)
while each run's status and row count stay what they were; a run still being
written is summarised again once the summary before has finished.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from verifier.compare.analysis import RunComparison, compare_paired
from verifier.compare.merge import Outcome
from verifier.compare.runs import pair_runs
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, open_store
from verifier.gaps.successions import Lineage
from verifier.viewer._flips import as_flip

__all__ = ["WORKERS", "DiffSummaries", "DiffSummary", "SummaryTask", "summarise"]

WORKERS = 2
"""Summaries computed at once, whatever the number of pairs asked for."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """What the page says of two runs as a whole.

    Attributes:
        comparison: The paired statistics, as ``verifier compare`` computes them.
        flips: Flips per claim and direction (``regressed``, ``fixed``).
    """

    comparison: RunComparison
    flips: dict[str, dict[str, int]]

    def selected(self, claim: str | None, direction: str | None) -> int:
        """How many flips ``claim`` (every claim: ``None``) has in ``direction`` (both:
        ``None``)."""
        return sum(
            n
            for claim_id, per in self.flips.items()
            if claim is None or claim_id == claim
            for way, n in per.items()
            if direction is None or way == direction
        )


class _FlipCounts:
    """Counts the flips among the pairs ``pair_runs`` is told of."""

    def __init__(self) -> None:
        self.counts: dict[str, dict[str, int]] = {}

    def __call__(self, case_id: str, claim_id: str, base: Outcome, cand: Outcome) -> None:
        flip = as_flip(case_id, claim_id, base, cand)
        if flip is not None:
            per = self.counts.setdefault(claim_id, {"regressed": 0, "fixed": 0})
            per[flip.direction] += 1


def summarise(
    store: GapStore, baseline_id: str, candidate_id: str, *, lineage: Lineage
) -> DiffSummary:
    """The summary of two runs, from one walk of both.

    Raises:
        CompareError: A run is unknown, or the runs cannot be compared.
    """
    counts = _FlipCounts()
    paired = pair_runs(store, baseline_id, candidate_id, lineage=lineage, on_pair=counts)
    return DiffSummary(compare_paired(paired), counts.counts)


@dataclass(slots=True)
class SummaryTask:
    """One summary being computed, or computed: its result or its one-line error."""

    version: tuple[object, ...]
    done: threading.Event = field(default_factory=threading.Event)
    summary: DiffSummary | None = None
    error: str | None = None

    def wait(self, seconds: float) -> SummaryTask:
        """The task, once done or after ``seconds``, whichever comes first."""
        self.done.wait(seconds)
        return self


class DiffSummaries:
    """The summaries of the last pairs of runs of one store, each computed once in the
    background.

    Args:
        store_target: The store, as ``verifier run --store`` takes it; each task opens
            it for itself.
        size: Pairs of runs whose summaries are kept.
    """

    def __init__(self, store_target: str, *, size: int = 8) -> None:
        self._target = store_target
        self._size = size
        self._tasks: OrderedDict[tuple[str, str, str], SummaryTask] = OrderedDict()
        self._lock = threading.Lock()
        self._workers = threading.BoundedSemaphore(WORKERS)

    def task(
        self, store: GapStore, baseline_id: str, candidate_id: str, *, lineage: Lineage
    ) -> SummaryTask:
        """The summary task of two runs of ``store``: the one running or done for them
        (when each run's status and row count, and the store's successions, are still
        what they were), else one started now."""
        pair = (store.location, baseline_id, candidate_id)
        version = (
            _state(store, baseline_id),
            _state(store, candidate_id),
            tuple(r.succession_id for r in lineage.rows),
        )
        running = any(state[1] == "running" for state in version[:2])
        with self._lock:
            found = self._tasks.get(pair)
            if found is not None and not found.done.is_set():
                return found
            if found is not None and found.version == version:
                if running:  # shown once: the next request sums up the rows since
                    del self._tasks[pair]
                else:
                    self._tasks.move_to_end(pair)
                return found
            task = self._tasks[pair] = SummaryTask(version)
            self._tasks.move_to_end(pair)
            self._forget()
        work = (task, baseline_id, candidate_id, lineage)
        threading.Thread(target=self._compute, args=work, daemon=True).start()
        return task

    def _forget(self) -> None:
        """Drops the oldest finished tasks past ``size`` (a running one is kept)."""
        finished = [k for k, t in self._tasks.items() if t.done.is_set()]
        for key in finished[: max(0, len(self._tasks) - self._size)]:
            del self._tasks[key]

    def _compute(
        self, task: SummaryTask, baseline_id: str, candidate_id: str, lineage: Lineage
    ) -> None:
        with self._workers:
            try:
                with open_store(self._target) as store:
                    task.summary = summarise(store, baseline_id, candidate_id, lineage=lineage)
            except VerifierError as exc:
                task.error = str(exc).splitlines()[0]
            except Exception as exc:  # shown on the page, not lost with the thread
                _log.exception("the summary of runs %s and %s failed", baseline_id, candidate_id)
                reason = (str(exc).splitlines() or [""])[0]
                task.error = f"{type(exc).__name__}: {reason}"
            finally:
                task.done.set()


def _state(store: GapStore, run_id: str) -> tuple[str, str | None, int | None]:
    record = store.run(run_id)
    if record is None:
        return (run_id, None, None)
    chain = record.chain_record
    return (run_id, record.status, chain.rows if chain else None)
