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
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from verifier.cases import CaseLine, case_lines, check_cases_file, read_cases
from verifier.contract.load import LoadedContract, load_contract
from verifier.contract.models import claim_kind
from verifier.contract.selection import choose_claims, judged_claims, unscored
from verifier.contract.sut_models import SutSpec
from verifier.engine.plan import Plan, build_plan
from verifier.engine.ports import Progress, ReportSink
from verifier.engine.runner import Runner, RunOptions, new_run_id
from verifier.errors import CasesError, VerifierError
from verifier.files import FileScope
from verifier.gaps.content import RecordPolicy
from verifier.gaps.store import GapStore, open_store
from verifier.gaps.target import new_store_target
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.judge.setup import JudgesOff, default_mode, make_judge_phase, unset_judge_key
from verifier.llm.limits import CallLimits
from verifier.llm.providers.registry import unset_key
from verifier.llm.replies import recordings_beside
from verifier.llm.types import ModelProvider
from verifier.logs import is_configured as logs_configured
from verifier.logs import route_to_standard_logging
from verifier.results import CaseResult, RunSummary
from verifier.sut.setup import make_stage, model_access
from verifier.sut.stage import SutStage

Note = Callable[[str], None]

RunMode = JudgeMode | Literal["off"]
"""How a run's judges answer: a call mode, or ``off`` (judged claims are skipped)."""


class JudgesUnavailable(VerifierError):
    """Judges asked to run live (or record) without the API key they need."""


@dataclass(frozen=True)
class Judges:
    """How judge and comparative claims (and a prompt system under test) reach models.

    Attributes:
        mode: ``live`` (cache, then call; a key that is not set stops the run before
            it starts), ``replay`` (cache and recordings only, never a call),
            ``record`` (always call, and write the recordings) or ``off`` (claims a
            judge answers are skipped and left out of the score; no call, no key, no
            recordings); ``None``: ``live`` when every judge's API key is set, else
            ``replay`` with a note.
        recordings: A recordings file read before the cache (written in ``record``),
            in any mode: naming one is how a live run is asked to use it.
        recordings_beside_contract: Without ``recordings``, replay (and record) use
            ``NAME.recordings.jsonl`` beside the contract file when it exists (or is
            being recorded); a live run never reads it unless named.
        limits: Concurrency, rates, timeout and retries of the calls.
        base_url: An endpoint for every judge (a proxy, a local test server).
        stand_in: A provider answering for every judge instead of the one its spec
            names (verdicts written by hand): no API key is needed, so none is checked.
    """

    mode: RunMode | None = None
    recordings: Path | None = None
    recordings_beside_contract: bool = True
    limits: CallLimits = field(default_factory=CallLimits)
    base_url: str | None = None
    stand_in: ModelProvider | None = None

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
        skipped: The claims a run with judges ``off`` skips, out of the score.
    """

    runner: Runner
    mode: RunMode | None
    notes: list[str]
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunResult:
    """A finished run.

    Attributes:
        summary: Totals, per-claim tallies and the store head.
        cases: Every case's results in the order checked (empty when not kept).
        mode: The judges' mode (``None`` without model-backed claims).
        notes: Things the user should know (why judges replay), one line each.
        skipped: The claims a run with judges ``off`` skipped, out of the score.
    """

    summary: RunSummary
    cases: tuple[CaseResult, ...]
    mode: RunMode | None
    notes: tuple[str, ...]
    skipped: tuple[str, ...] = ()

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


def judge_mode(loaded: LoadedContract, judges: Judges) -> tuple[RunMode | None, str | None]:
    """The mode a run of ``loaded`` goes in (``None`` without model-backed claims), with
    a note when it fell back to replay.

    Raises:
        JudgesUnavailable: ``live`` or ``record`` was asked for and a judge's API key is
            not set: every call would fail, so the run must not start.
    """
    if not has_model_claims(loaded):
        return None, None
    mode = judges.mode
    if mode is None:
        return default_mode(loaded) if judges.stand_in is None else ("live", None)
    keyed = mode in ("live", "record") and judges.stand_in is None
    unset = unset_judge_key(loaded) if keyed else None
    if unset is not None:
        name, variable = unset
        raise JudgesUnavailable(
            f"judges run {mode}, but {variable} is not set (judge {name!r}); set it, "
            "or replay recorded verdicts (--judges replay), or skip judged claims "
            "(--judges off)"
        )
    return mode, None


def check_run(
    loaded: LoadedContract,
    judges: Judges,
    *,
    sut: Sut | None = None,
    claims: Sequence[str] | None = None,
) -> LoadedContract:
    """What a run of ``loaded`` will check, decided before anything is opened or written:
    the contract narrowed to ``claims`` (when given), after checking that its judges
    (and a prompt system under test) can answer in the mode asked for.

    Raises:
        ClaimChoiceError: An unknown claim id, or a chosen claim's gate left out.
        JudgesUnavailable: A key that ``live`` or ``record`` needs is not set, or
            ``off`` leaves nothing to check.
    """
    if claims is not None:
        loaded = choose_claims(loaded, claims)
    judge_mode(loaded, judges)
    if judges.mode == "off" and len(judged_claims(loaded)) == len(loaded.contract.claims):
        raise JudgesUnavailable(
            f"{loaded.path}: every claim {'chosen ' if claims else ''}needs a judge, so "
            "--judges off leaves nothing to check"
        )
    prompt = sut.spec.prompt if sut is not None else None
    variable = unset_key(prompt.provider) if prompt is not None else None
    if variable and judges.mode in ("live", "record"):
        raise JudgesUnavailable(
            f"the prompt system under test runs {judges.mode}, but {variable} is not set; "
            "set it, or replay its recorded outputs (--judges replay)"
        )
    return loaded


def judge_phase_for(
    loaded: LoadedContract,
    judges: Judges,
    *,
    plan: Plan,
    target: str,
    run_id: str,
    note: Note,
    keep_replies: bool | None = None,
) -> tuple[JudgePhase | JudgesOff | None, RunMode | None]:
    """The run's judge phase and mode (``(None, None)`` without model-backed claims),
    over the run's ``plan`` of ``loaded``.

    Raises:
        JudgesUnavailable: Live or record mode without a judge's key.
        VerifierError: A template, the recordings or the store's cache is unusable.
    """
    mode, why = judge_mode(loaded, judges)
    if why:
        note(why)
    if mode is None:
        return None, None
    if mode == "off":
        return JudgesOff(plan, judged_claims(loaded)), mode
    phase = make_judge_phase(
        loaded,
        plan=plan,
        mode=mode,
        store_path=target,
        recordings=judges.recordings_for(loaded, mode),
        limits=judges.limits,
        run_id=run_id,
        base_url=judges.base_url,
        keep_replies=keep_replies,
        stand_in=judges.stand_in,
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
    keep_replies: bool | None = None,
) -> SutStage:
    """The stage producing a run's outputs with ``sut``, reaching models as judges do
    (with judges ``off``, a prompt system still answers as it would by default).

    Raises:
        VerifierError: The system cannot be set up (a template, a module, a command).
    """
    access, why = model_access(
        sut.spec,
        contract_path=loaded.path,
        mode=None if judges.mode == "off" else judges.mode,
        recordings=judges.recordings,
        target=target,
        limits=judges.limits,
        run_id=run_id,
        store_replies=(
            loaded.contract.record.policy().keeps_replies if keep_replies is None else keep_replies
        ),
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

    The run's options record gets the judges' mode under ``judges``. With judges
    ``off``, the claims a judge answers weigh nothing in a case's score.

    Raises:
        JudgesUnavailable: Live or record mode without a key it needs, or ``off``
            with nothing left to check (see :func:`check_run`).
        VerifierError: A template, the recordings, the cache or the system is unusable.
    """
    judges = judges or Judges()
    loaded = check_run(loaded, judges, sut=sut)
    skipped = tuple(judged_claims(loaded)) if judges.mode == "off" else ()
    if skipped:
        loaded = unscored(loaded, skipped)
    options = options or RunOptions()
    run_id = options.run_id or new_run_id()
    notes: list[str] = []

    def tell(text: str) -> None:
        if text not in notes:
            notes.append(text)
            if note is not None:
                note(text)

    keep_replies = (options.record or loaded.contract.record.policy()).keeps_replies
    # The one plan of the run: its judge phase and its runner share it.
    plan = build_plan(loaded)
    phase, mode = judge_phase_for(
        loaded,
        judges,
        plan=plan,
        target=target,
        run_id=run_id,
        note=tell,
        keep_replies=keep_replies,
    )
    stage = (
        sut_stage_for(
            loaded, sut, judges, target=target, run_id=run_id, note=tell, keep_replies=keep_replies
        )
        if sut is not None
        else None
    )
    record = {**(options.options_record or {}), "judges": mode}
    runner = Runner(
        loaded,
        store,
        plan=plan,
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
            shard=options.shard,
        ),
    )
    return AssembledRun(runner, mode, notes, skipped)


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


_NO_CASE: Any = object()


def lines_of(
    cases: str | os.PathLike[str] | Iterable[Mapping[str, Any] | CaseLine],
) -> Iterator[CaseLine]:
    """Cases as the runner reads them: a JSONL file's lines, or objects given in memory
    (plain dicts checked as a file's lines are: an object with a usable, unique ``id``).

    Raises:
        CasesError: No case at all: the file is refused as ``verifier run`` refuses it
            (:func:`~verifier.cases.check_cases_file`), and an empty list or iterator
            likewise, so no run of 0 cases is stored.
    """
    if isinstance(cases, str | os.PathLike):
        check_cases_file(Path(cases))
        return read_cases(Path(cases))
    given = iter(cases)
    # Peeks at the first case only: an iterator may be too long to hold in memory.
    first = next(given, _NO_CASE)
    if first is _NO_CASE:
        raise CasesError("no cases: the cases given are empty")
    return case_lines(itertools.chain((first,), given))


def run_contract(
    contract: LoadedContract | str | os.PathLike[str],
    cases: str | os.PathLike[str] | Iterable[Mapping[str, Any] | CaseLine],
    *,
    store: str | os.PathLike[str] | None = None,
    judges: Judges | None = None,
    claims: Sequence[str] | None = None,
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
            else ``.verifier/gaps.db``); a file's folder must exist, except the
            default's own.
        judges: How model-backed claims reach models (default: :class:`Judges`).
        claims: Check only these claims (ids); every row of the run is one of them.
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
        VerifierError: The contract, the cases (none at all, or a file not JSONL), the
            store, the chosen claims, the judges' keys, a template, the recordings or
            the system under test cannot be used; all but the last three are found
            before anything is written. A failure of one case or one call is a
            result, not an exception.
    """
    if not logs_configured():
        # A library speaks through its host's logging (silent unless the host asks);
        # unconfigured, structlog would print every event to stdout.
        route_to_standard_logging()
    loaded = contract_of(contract)
    target = new_store_target(store)
    if sut is None and use_declared_sut:
        sut = declared_sut(loaded)
    judges = judges or Judges()
    loaded = check_run(loaded, judges, sut=sut, claims=claims)
    if claims is not None:
        options_record = {
            **(options_record or {}),
            "claims": [c.id for c in loaded.contract.claims],
        }
    lines = lines_of(cases)
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
        summary = asyncio.run(assembled.runner.run(lines))
    return RunResult(
        summary, tuple(keep.cases), assembled.mode, tuple(assembled.notes), assembled.skipped
    )
