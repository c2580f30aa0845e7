"""Resuming a run: what an interrupted run already stored is read back, not redone.

Rows are appended a chunk at a time, so a case is either stored whole or not at all;
a resumed run skips the stored cases (rebuilding their results from their rows for
the report and totals) and checks only the rest. Judge verdicts obtained before the
interruption are in the cache, so even a case whose rows were lost costs no new call.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from verifier.canonical import loads_exact
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord
from verifier.plan import Plan
from verifier.results import CaseResult, ClaimResult

if TYPE_CHECKING:
    from verifier.contract.sut_models import SutSpec


class ResumeError(VerifierError):
    """A run that cannot be resumed (unknown, finished, or of another contract)."""


def check_resumable(store: GapStore, run_id: str, contract_sha256: str) -> RunRecord:
    """The record of ``run_id``, an unfinished run of this contract.

    Raises:
        ResumeError: The run is unknown, finished, or of another contract version.
    """
    record = store.run(run_id)
    if record is None:
        raise ResumeError(f"run {run_id} is not in {store.location}")
    if record.status == "finished":
        raise ResumeError(f"run {run_id} already finished; start a new run instead")
    if record.contract_sha256 != contract_sha256:
        raise ResumeError(
            f"run {run_id} used another version of the contract "
            f"(sha256 {record.contract_sha256[:12]}…); resume it with that file"
        )
    return record


def resumed_sample(
    recorded: Mapping[str, Any], sample: float | None, seed: int | None
) -> tuple[float | None, int | None]:
    """The sample a resumed run goes on with: the one it started with.

    Options left out are taken from the run's record (``recorded``: its options).

    Raises:
        ResumeError: The options contradict the record: the resumed run would check
            another set of cases.
    """
    was_sample, was_seed = recorded.get("sample"), recorded.get("seed")
    if was_sample is None:
        if sample is not None:
            raise ResumeError(
                "the run being resumed checked every case; resume it without --sample"
            )
        return None, None
    if (sample is not None and sample != was_sample) or (seed is not None and seed != was_seed):
        raise ResumeError(
            f"the run being resumed sampled --sample {was_sample:g} --seed {was_seed}; "
            "resume it with the same sample (or without --sample/--seed)"
        )
    if not isinstance(was_seed, int):
        raise ResumeError(
            "the run being resumed recorded a sample without its seed; it cannot be resumed"
        )
    return float(was_sample), was_seed


def same_system(recorded: Mapping[str, Any], spec: SutSpec | None, repeat: int | None) -> None:
    """Checks a run is resumed with the system under test (and repeat) it started
    with: otherwise its cases would be checked against outputs of two systems.

    Raises:
        ResumeError: Another system, another repeat, or a run of a ``--variant`` pair.
    """
    from verifier.sut import masked_description

    if recorded.get("variant"):
        raise ResumeError(
            "the run being resumed is one of a --variant pair, which cannot be resumed; "
            "run the pair again"
        )
    now = masked_description(spec) if spec is not None else None
    was = recorded.get("sut")
    if was != now:
        raise ResumeError(
            f"the run being resumed ran {f'the system {was}' if was else 'no system under test'}"
            f", not {f'the system {now}' if now else 'none'}; resume it with the same system"
        )
    was_repeat = recorded.get("repeat")
    if spec is not None and isinstance(was_repeat, int) and was_repeat != (repeat or spec.repeat):
        raise ResumeError(
            f"the run being resumed ran the system {was_repeat} time(s) a case; "
            f"use --repeat {was_repeat}"
        )


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
    from verifier.runner import score_case

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
