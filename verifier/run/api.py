"""A run as one call: :func:`run_contract` does everything ``verifier run`` does to a
run (resume, sample, shards, batch, variants, baseline, gate) and returns a
:class:`RunResult` holding what the command prints from.

It raises on what it cannot do (:class:`~verifier.errors.VerifierError`, one line
each, before anything is written where it can) and lets ``KeyboardInterrupt`` through
with the rows already stored kept; only the command line prints and exits.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.contract.load import LoadedContract
from verifier.engine.ports import Progress
from verifier.engine.runner import RunOptions
from verifier.gaps.content import RecordPolicy
from verifier.logs import is_configured as logs_configured
from verifier.logs import route_to_standard_logging
from verifier.results import CaseResult, RunSummary
from verifier.run.assembly import Judges, Note, RunMode, Sut
from verifier.run.baseline import BaselineMatches
from verifier.run.execute import execute_run
from verifier.run.options import Batch, Resume, Sample, ShardPart, Sinks, Variants
from verifier.run.prepare import CasesGiven, contract_of, prepare_run
from verifier.run.shards import ShardEnd

if TYPE_CHECKING:
    from verifier.compare.gate import GateDecision

__all__ = ["RunResult", "run_contract"]


@dataclass(frozen=True)
class RunResult:
    """A finished run.

    Attributes:
        summary: Totals, per-claim tallies and the store head (of the candidate, in a
            run of two variants).
        cases: Every case's results in the order checked (empty when not kept).
        mode: The judges' mode (``None`` without model-backed claims).
        notes: Things the user should know (why judges replay), one line each.
        skipped: The claims a run with judges ``off`` skipped, out of the score.
        baseline_summary: In a run of two variants, the first variant's run (``None``
            when every claim compares, so it stored nothing of its own).
        sample: The sample checked, with the seed it used (``None``: every case).
        shard: How a shard's end left its run (``None``: not a shard).
        gate: The gate's decision on the run (``None``: no gate).
        baseline_matches: How many cases the baseline matched (``None``: no baseline,
            or no claim reads it).
        baseline_ids: The ids the baseline holds (for :meth:`baseline_line`).
        claims: The claims chosen (``None``: every claim).
        store: Where the rows are (a URL without its password).
    """

    summary: RunSummary
    cases: tuple[CaseResult, ...]
    mode: RunMode | None
    notes: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    baseline_summary: RunSummary | None = None
    sample: Sample | None = None
    shard: ShardEnd | None = None
    gate: GateDecision | None = None
    baseline_matches: BaselineMatches | None = None
    baseline_ids: Collection[str] = ()
    claims: tuple[str, ...] | None = None
    store: str = ""

    @property
    def run_id(self) -> str:
        return self.summary.run_id

    @property
    def passed(self) -> bool:
        """Whether the run passed: its gate when it has one, else at least one case was
        checked and every case (of both variants) passed."""
        if self.gate is not None:
            return self.gate.exit_code == 0
        failed = self.summary.failed_cases
        if self.baseline_summary is not None:
            failed += self.baseline_summary.failed_cases
        return self.summary.total_cases > 0 and failed == 0

    def baseline_line(self) -> str | None:
        """``baseline: 18 of 20 case ids matched; ...`` (``None``: no baseline read)."""
        if self.baseline_matches is None:
            return None
        return self.baseline_matches.line(self.baseline_ids)

    def case(self, case_id: str) -> CaseResult:
        """The results of the case with id ``case_id``.

        Raises:
            KeyError: No case of this run has that id.
        """
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)


def run_contract(
    contract: LoadedContract | str | os.PathLike[str],
    cases: CasesGiven,
    *,
    store: str | os.PathLike[str] | None = None,
    judges: Judges | None = None,
    claims: Sequence[str] | None = None,
    sut: Sut | None = None,
    use_declared_sut: bool = True,
    variants: Variants | None = None,
    repeat: int | None = None,
    threshold: float | None = None,
    record: RecordPolicy | None = None,
    run_id: str | None = None,
    resume: Resume | None = None,
    sample: Sample | None = None,
    shard: ShardPart | None = None,
    batch: Batch | None = None,
    gate: str | os.PathLike[str] | None = None,
    baseline: str | os.PathLike[str] | None = None,
    chunk_size: int = 500,
    sinks: Sinks = (),
    progress: Progress | None = None,
    keep_cases: bool = True,
    options_record: dict[str, Any] | None = None,
    note: Note | None = None,
    allow_outside: Sequence[Path] = (),
) -> RunResult:
    """Checks every claim of ``contract`` against every case and stores the gap rows.

    Args:
        contract: A contract file, or a contract already loaded.
        cases: A JSONL file of cases (or a suite document: ``{"test_suite", "version",
            "cases": [...]}`` in JSON or YAML), or the cases themselves (dicts with an
            ``id``).
        store: A SQLite file or ``postgresql://`` URL (default: ``VERIFIER_STORE``,
            else ``.verifier/gaps.db``); a file's folder must exist, except the
            default's own.
        judges: How model-backed claims reach models: mode, recordings, limits
            (default: :class:`Judges`).
        claims: Check only these claims (ids); every row of the run is one of them.
        sut: A system under test to produce each case's output; without one, the
            contract's own ``sut:`` runs unless ``use_declared_sut`` is false.
        variants: Two systems, each run on every case and stored as its own run.
        repeat: Calls of the system per case, overriding its ``repeat``.
        threshold: Overrides the contract's threshold.
        record: How much of each case's content to keep (default: the contract's
            ``record:`` block).
        run_id: An id for the run (default: a fresh, sortable one).
        resume: Finish an interrupted run: only the cases it did not store are checked.
        sample: Check a reproducible random sample of the cases.
        shard: Check one part of the cases into a run shared by every part.
        batch: Send the judge requests as Message Batches.
        gate: A gate file (``verifier gate lock``) that decides on the run.
        baseline: Cases of a baseline run, joined by id, for comparative claims.
        chunk_size: Cases checked and stored together.
        sinks: Report writers told of every case and of the end of the run, or a
            function making them over the open store.
        progress: Shown the run's progress.
        keep_cases: Keep every case's results in the result (false for runs too large
            to hold in memory; the store has them all).
        options_record: What to record about the invocation with the run.
        note: Receives one-line notes for the user (the result keeps them too).
        allow_outside: Folders outside the contract's own whose files it may name
            (when ``contract`` is a file).

    Raises:
        VerifierError: The contract, the cases (none at all, or a file not JSONL), the
            store, the options together, the run to resume, the gate or its lock, the
            baseline, the chosen claims or the judges' keys, found before anything is
            written; or a template, the recordings or the system under test, or an
            error that stopped the run once begun (saying how to resume it). A failure
            of one case or one call is a result, not an exception.
        KeyboardInterrupt: Ctrl-C (or SIGTERM) stopped the run; the rows already stored
            are kept, and the exception's note (PEP 678) says which run holds them.
    """
    if not logs_configured():
        # A library speaks through its host's logging (silent unless the host asks);
        # unconfigured, structlog would print every event to stdout.
        route_to_standard_logging()
    judges = judges or Judges()
    prepared = prepare_run(
        contract_of(contract, allow_outside),
        cases,
        store=store,
        judges=judges,
        claims=claims,
        sut=sut,
        variants=variants,
        use_declared_sut=use_declared_sut,
        repeat=repeat,
        record=record,
        run_id=run_id,
        resume=resume,
        sample=sample,
        shard=shard,
        batch=batch,
        gate=gate,
        baseline=baseline,
    )
    done = execute_run(
        prepared,
        judges=judges,
        options=RunOptions(
            threshold=threshold, chunk_size=chunk_size, options_record=options_record
        ),
        sinks=sinks,
        progress=progress,
        keep_cases=keep_cases,
        note=note,
    )
    return RunResult(
        done.summary,
        done.cases,
        done.mode,
        tuple(done.notes),
        done.skipped,
        baseline_summary=done.baseline_summary,
        sample=done.sample,
        shard=done.shard,
        gate=done.gate,
        baseline_matches=prepared.matches,
        baseline_ids=frozenset(prepared.baseline or ()),
        claims=tuple(prepared.claims) if prepared.claims is not None else None,
        store=done.store,
    )
