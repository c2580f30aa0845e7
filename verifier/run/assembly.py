"""One way to run a contract: the entry point every surface goes through.

The command line, the pytest plugin, the HTTP server, ``evaluate`` and the promptfoo
assertion each translate their own inputs (options, ini settings, request bodies)
into the same few objects here: the contract, the cases, the store, :class:`Judges`
and an optional :class:`Sut`. :func:`assemble_run` turns them into a runner over an
open store (for callers that drive a run chunk by chunk);
:func:`verifier.run.api.run_contract` does the whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from verifier.contract.load import LoadedContract
from verifier.contract.models import claim_kind
from verifier.contract.selection import choose_claims, judged_claims, unscored
from verifier.contract.sut_models import SutSpec
from verifier.engine.plan import Plan, build_plan
from verifier.engine.ports import Progress, ReportSink
from verifier.engine.runner import Runner, RunOptions, new_run_id
from verifier.errors import VerifierError
from verifier.files import FileScope
from verifier.gaps.store import GapStore
from verifier.judge.phase import JudgeMode, JudgePhase
from verifier.judge.setup import JudgesOff, default_mode, make_judge_phase, unset_judge_key
from verifier.llm.limits import CallLimits
from verifier.llm.providers.registry import unset_key
from verifier.llm.replies import recordings_beside
from verifier.llm.types import ModelProvider
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
    checked: bool = False,
) -> AssembledRun:
    """A runner for ``loaded`` over the open ``store`` (``target`` names it, for the
    judge cache), with its judge phase and system under test.

    The run's options record gets the judges' mode under ``judges``. With judges
    ``off``, the claims a judge answers weigh nothing in a case's score. ``checked``:
    :func:`check_run` has passed ``loaded`` with these judges and system already.

    Raises:
        JudgesUnavailable: Live or record mode without a key it needs, or ``off``
            with nothing left to check (see :func:`check_run`).
        VerifierError: A template, the recordings, the cache or the system is unusable.
    """
    judges = judges or Judges()
    if not checked:
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
