"""One way to run a contract: the entry point every surface goes through.

The command line, the pytest plugin, the HTTP server, ``evaluate`` and the promptfoo
assertion each translate their own inputs (options, ini settings, request bodies)
into the same few objects here: the contract, the cases, the store, :class:`Judges`
and an optional :class:`Sut`. :func:`assemble_run` turns them into a runner over an
open store (for callers that drive a run chunk by chunk); :func:`run_contract` does
the whole run and returns a :class:`RunResult` to read per case and claim.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.cases import CaseLine, case_lines, read_cases
from verifier.contract.load import LoadedContract, load_contract
from verifier.contract.models import claim_kind
from verifier.contract.sut_models import SutSpec
from verifier.files import FileScope
from verifier.gaps.content import RecordPolicy
from verifier.gaps.store import GapStore, open_store
from verifier.gaps.target import store_target
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.judge.setup import default_mode, make_judge_phase
from verifier.llm.limits import CallLimits
from verifier.llm.replies import recordings_beside
from verifier.logs import route_to_standard_logging
from verifier.results import CaseResult, RunSummary
from verifier.runner import Progress, ReportSink, Runner, RunOptions, new_run_id
from verifier.sut.setup import make_stage, model_access
from verifier.sut.stage import SutStage

Note = Callable[[str], None]


@dataclass(frozen=True)
class Judges:
    """How judge and comparative claims (and a prompt system under test) reach models.

    Attributes:
        mode: ``live`` (cache, then call), ``replay`` (cache and recordings only, never
            a call) or ``record`` (always call, and write the recordings); ``None``:
            ``live`` when every judge's API key is set, else ``replay`` with a note.
        recordings: A recordings file read before the cache (written in ``record``).
        recordings_beside_contract: Without ``recordings``, use ``NAME.recordings.jsonl``
            beside the contract file when it exists (or is being recorded).
        limits: Concurrency, rates, timeout and retries of the calls.
        base_url: An endpoint for every judge (a proxy, a local test server).
    """

    mode: JudgeMode | None = None
    recordings: Path | None = None
    recordings_beside_contract: bool = True
    limits: CallLimits = field(default_factory=CallLimits)
    base_url: str | None = None

    def recordings_for(self, loaded: LoadedContract, mode: JudgeMode) -> Path | None:
        """The recordings file a run of ``loaded`` in ``mode`` reads (``None``: none)."""
        if self.recordings is not None or not self.recordings_beside_contract:
            return self.recordings
        return recordings_beside(loaded.path, mode)


@dataclass(frozen=True)
class Sut:
    """The system that produces each case's output before its claims are checked.

    Attributes:
        spec: What to run (the contract's ``sut:`` block, or one given instead).
        base_dir: Where its relative paths (commands, templates) start from: a
            directory (whose tree they must stay in) or a contract's file scope.
        repeat: Calls per case, overriding the spec's ``repeat``.
        variant: The variant's name when two systems are compared.
    """

    spec: SutSpec
    base_dir: Path | FileScope
    repeat: int | None = None
    variant: str | None = None


@dataclass
class AssembledRun:
    """A run ready to go over an open store.

    Attributes:
        runner: Checks chunks of cases and stores their gap rows.
        mode: The judges' mode (``None`` when the contract has no model-backed claim).
        notes: Things the user should know (why judges replay), one line each.
    """

    runner: Runner
    mode: JudgeMode | None
    notes: list[str]


@dataclass(frozen=True)
class RunResult:
    """A finished run.

    Attributes:
        summary: Totals, per-claim tallies and the store head.
        cases: Every case's results in the order checked (empty when not kept).
        mode: The judges' mode (``None`` without model-backed claims).
        notes: Things the user should know (why judges replay), one line each.
    """

    summary: RunSummary
    cases: tuple[CaseResult, ...]
    mode: JudgeMode | None
    notes: tuple[str, ...]

    @property
    def run_id(self) -> str:
        return self.summary.run_id

    @property
    def passed(self) -> bool:
        """Whether at least one case was checked and every case passed."""
        return self.summary.total_cases > 0 and self.summary.failed_cases == 0

    def case(self, case_id: str) -> CaseResult:
        """The results of the case with id ``case_id``.

        Raises:
            KeyError: No case of this run has that id.
        """
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)


def has_model_claims(loaded: LoadedContract) -> bool:
    """Whether any claim needs a model (judge or judged comparison)."""
    return any(claim_kind(claim) != "rubric" for claim in loaded.contract.claims)


def judge_phase_for(
    loaded: LoadedContract,
    judges: Judges,
    *,
    target: str,
    run_id: str,
    note: Note,
) -> tuple[JudgePhase | None, JudgeMode | None]:
    """The run's judge phase and mode (``(None, None)`` without model-backed claims).

    Raises:
        VerifierError: A template, the recordings or the store's cache is unusable.
    """
    if not has_model_claims(loaded):
        return None, None
    mode = judges.mode
    if mode is None:
        mode, why = default_mode(loaded)
        if why:
            note(why)
    phase = make_judge_phase(
        loaded,
        mode=mode,
        store_path=target,
        recordings=judges.recordings_for(loaded, mode),
        limits=judges.limits,
        run_id=run_id,
        base_url=judges.base_url,
    )
    return phase, mode


def sut_stage_for(
    loaded: LoadedContract,
    sut: Sut,
    judges: Judges,
    *,
    target: str,
    run_id: str,
    note: Note,
) -> SutStage:
    """The stage producing a run's outputs with ``sut``, reaching models as judges do.

    Raises:
        VerifierError: The system cannot be set up (a template, a module, a command).
    """
    access, why = model_access(
        sut.spec,
        contract_path=loaded.path,
        mode=judges.mode,
        recordings=judges.recordings,
        target=target,
        limits=judges.limits,
        run_id=run_id,
        store_replies=not loaded.contract.record.redact,
    )
    if why:
        note(why)
    return make_stage(
        sut.spec,
        base_dir=sut.base_dir,
        access=access,
        repeat=sut.repeat,
        variant=sut.variant,
        contract_dir=loaded.base_dir,
    )


def declared_sut(loaded: LoadedContract) -> Sut | None:
    """The contract's own ``sut:`` block, if it has one."""
    spec = loaded.contract.sut
    return Sut(spec, loaded.files) if spec is not None else None


def assemble_run(
    loaded: LoadedContract,
    store: GapStore,
    *,
    target: str,
    judges: Judges | None = None,
    sut: Sut | None = None,
    options: RunOptions | None = None,
    sinks: Sequence[ReportSink] = (),
    progress: Progress | None = None,
    note: Note | None = None,
) -> AssembledRun:
    """A runner for ``loaded`` over the open ``store`` (``target`` names it, for the
    judge cache), with its judge phase and system under test.

    The run's options record gets the judges' mode under ``judges``.

    Raises:
        VerifierError: A template, the recordings, the cache or the system is unusable.
    """
    judges = judges or Judges()
    options = options or RunOptions()
    run_id = options.run_id or new_run_id()
    notes: list[str] = []

    def tell(text: str) -> None:
        if text not in notes:
            notes.append(text)
            if note is not None:
                note(text)

    phase, mode = judge_phase_for(loaded, judges, target=target, run_id=run_id, note=tell)
    stage = (
        sut_stage_for(loaded, sut, judges, target=target, run_id=run_id, note=tell)
        if sut is not None
        else None
    )
    record = {**(options.options_record or {}), "judges": mode}
    runner = Runner(
        loaded,
        store,
        sinks=sinks,
        progress=progress,
        model_phase=phase,
        sut=stage,
        options=RunOptions(
            threshold=options.threshold,
            chunk_size=options.chunk_size,
            run_id=run_id,
            resume=options.resume,
            options_record=record,
            record=options.record,
        ),
    )
    return AssembledRun(runner, mode, notes)


class KeptCases:
    """A report sink that keeps every case's results (``cases``), in the order checked."""

    def __init__(self) -> None:
        self.cases: list[CaseResult] = []

    def add_case(self, case: CaseResult) -> None:
        self.cases.append(case)

    def finish(self, summary: RunSummary) -> None:
        return None


def contract_of(contract: LoadedContract | str | os.PathLike[str]) -> LoadedContract:
    """A loaded contract, loading it when given a path.

    Raises:
        ContractError: The file is not a usable contract (every problem, located).
    """
    if isinstance(contract, LoadedContract):
        return contract
    return load_contract(Path(contract))


def lines_of(
    cases: str | os.PathLike[str] | Iterable[Mapping[str, Any] | CaseLine],
) -> Iterator[CaseLine]:
    """Cases as the runner reads them: a JSONL file's lines, or objects given in memory
    (plain dicts checked as a file's lines are: an object with a usable, unique ``id``).
    """
    if isinstance(cases, str | os.PathLike):
        return read_cases(Path(cases))
    return case_lines(cases)


def run_contract(
    contract: LoadedContract | str | os.PathLike[str],
    cases: str | os.PathLike[str] | Iterable[Mapping[str, Any] | CaseLine],
    *,
    store: str | os.PathLike[str] | None = None,
    judges: Judges | None = None,
    sut: Sut | None = None,
    use_declared_sut: bool = True,
    threshold: float | None = None,
    record: RecordPolicy | None = None,
    run_id: str | None = None,
    sinks: Sequence[ReportSink] = (),
    keep_cases: bool = True,
    options_record: Mapping[str, Any] | None = None,
    note: Note | None = None,
) -> RunResult:
    """Checks every claim of ``contract`` against every case and stores the gap rows.

    Args:
        contract: A contract file, or a contract already loaded.
        cases: A JSONL file of cases, or the cases themselves (dicts with an ``id``).
        store: A SQLite file or ``postgresql://`` URL (default: ``VERIFIER_STORE``,
            else ``.verifier/gaps.db``).
        judges: How model-backed claims reach models (default: :class:`Judges`).
        sut: A system under test to produce each case's output; without one, the
            contract's own ``sut:`` runs unless ``use_declared_sut`` is false.
        threshold: Overrides the contract's threshold.
        record: How much of each case's content to keep (default: the contract's
            ``record:`` block).
        run_id: An id for the run (default: a fresh, sortable one).
        sinks: Report writers told of every case and of the end of the run.
        keep_cases: Keep every case's results in the result (false for runs too large
            to hold in memory; the store has them all).
        options_record: What to record about the invocation with the run.
        note: Receives one-line notes for the user (the result keeps them too).

    Raises:
        VerifierError: The contract, the cases file, the store, a template, the
            recordings or the system under test cannot be used. A failure of one
            case or one call is a result, not an exception.
    """
    import structlog

    if not structlog.is_configured():
        # A library speaks through its host's logging (silent unless the host asks);
        # unconfigured, structlog would print every event to stdout.
        route_to_standard_logging()
    loaded = contract_of(contract)
    target = store_target(store)
    if sut is None and use_declared_sut:
        sut = declared_sut(loaded)
    keep = KeptCases()
    with open_store(target) as gap_store:
        assembled = assemble_run(
            loaded,
            gap_store,
            target=target,
            judges=judges,
            sut=sut,
            options=RunOptions(
                threshold=threshold,
                run_id=run_id,
                options_record=options_record,
                record=record,
            ),
            sinks=[*sinks, keep] if keep_cases else sinks,
            note=note,
        )
        summary = asyncio.run(assembled.runner.run(lines_of(cases)))
    return RunResult(summary, tuple(keep.cases), assembled.mode, tuple(assembled.notes))
