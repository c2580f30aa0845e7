"""A prepared run over its open store: resumed, sampled, sharded, batched, of two
variants, joined with a baseline and gated; :func:`verifier.run_contract` calls it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from verifier._internal.case_mapping import CaseMapping
from verifier.cases import CaseLine, case_lines, read_cases, sample_cases
from verifier.contract.selection import judged_claims
from verifier.engine.ports import Progress
from verifier.engine.runner import RunOptions, new_run_id, run_sync
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord, open_store, resolve_run_id
from verifier.results import CaseResult, RunSummary
from verifier.run.assembly import Judges, KeptCases, Note, RunMode, assemble_run, judge_mode
from verifier.run.baseline import join_baseline
from verifier.run.batch import every_case, run_with_batch
from verifier.run.options import Batch, Resume, Sample, ShardPart, Sinks, sinks_over
from verifier.run.prepare import PreparedRun
from verifier.run.resume import (
    StoredPrefixIds,
    check_resumable,
    resume_hint,
    resume_point,
    resumed_mapping,
    resumed_sample,
    same_choice,
    same_system,
)
from verifier.run.shards import ShardEnd, begin_shard, end_shard, in_shard
from verifier.sut import masked_description

if TYPE_CHECKING:
    from verifier.compare.gate import GateDecision

__all__ = ["Executed", "RunStopped", "execute_run"]

OpenCases = Callable[..., Iterator[CaseLine]]


class RunStopped(VerifierError):
    """A run that had begun stopped on an error (a store that filled up); the message
    says which run keeps the rows already stored and how to check the rest."""


@dataclass
class Executed:
    """What a run did, for :class:`verifier.RunResult`."""

    summary: RunSummary
    mode: RunMode | None = None
    notes: list[str] = field(default_factory=list)
    skipped: tuple[str, ...] = ()
    cases: tuple[CaseResult, ...] = ()
    baseline_summary: RunSummary | None = None
    sample: Sample | None = None
    shard: ShardEnd | None = None
    gate: GateDecision | None = None
    store: str = ""


@dataclass(frozen=True)
class Begun:
    """The run as it begins: its id, the record of the run it resumes, its sample."""

    run_id: str
    resumed: RunRecord | None
    sample: Sample | None


def execute_run(
    prepared: PreparedRun,
    *,
    judges: Judges,
    options: RunOptions,
    sinks: Sinks,
    progress: Progress | None,
    keep_cases: bool,
    note: Note | None,
) -> Executed:
    """Runs ``prepared`` (with the run id, resume, sample, shard and batch it was
    prepared with) over its store; ``options`` holds the threshold, chunk size and the
    caller's options record.

    Raises:
        KeyboardInterrupt: Ctrl-C (or SIGTERM) stopped the run; its rows are kept and
            the exception's note (PEP 678) says which run holds them, and how to resume.
        VerifierError: The store or the run being resumed, or an error that stopped
            the run once begun (:class:`RunStopped`, saying how to resume it).
    """
    keep = KeptCases() if keep_cases else None
    shard, resume, batch = prepared.shard, prepared.resume, prepared.batch
    with open_store(prepared.target) as store:
        begun = _begin(
            store, prepared, judges, run_id=prepared.run_id, resume=resume, sample=prepared.sample
        )
        mapping = resumed_mapping(prepared.mapping, begun.resumed)
        open_cases = _case_reader(prepared, shard, begun.sample, mapping)
        new_first = None
        if begun.resumed is not None:  # its new work first, past the lines it stored
            point = 0
            if prepared.cases_path is not None:
                cut = mapping is not None and mapping.since is not None
                whole = begun.sample is None and shard is None and not cut
                path = prepared.cases_path
                point = resume_point(store, begun.resumed, path, whole_file=whole)
            seen = StoredPrefixIds(store, begun.run_id, point) if point else None
            new_first = open_cases(point, seen)
        if shard is not None:
            ended = begin_shard(store, shard.shard, begun.run_id, resume=resume is not None)
            if ended is not None:
                return _already_ended(prepared, begun, ended, store)
        record = _record(prepared, options.options_record or {}, begun.sample, batch)
        run = _Run(prepared, store, judges, progress, note)
        run.options = RunOptions(
            threshold=options.threshold,
            chunk_size=options.chunk_size,
            run_id=begun.run_id,
            resume=begun.resumed is not None,
            options_record=record,
            record=prepared.record,
            shard=shard.shard if shard is not None else None,
        )
        run.sinks = [*sinks_over(sinks, store), *([keep] if keep is not None else [])]
        total = _total(prepared, progress) if begun.sample is None and shard is None else None
        done = run.go(open_cases, total=total, new_first=new_first, batch=batch)
        done.sample, done.store = begun.sample, store.location
        done.cases = tuple(keep.cases) if keep is not None else ()
        if shard is not None:
            done.shard = end_shard(store, shard.shard, done.summary)
        if prepared.gate is not None:
            from verifier.run.gate import decide_gate

            done.gate = decide_gate(prepared.gate, store, done.summary.run_id)
    return done


class _Run:
    """One run (or a pair of variants) over the open store, with its notes."""

    options: RunOptions
    sinks: list[Any]

    def __init__(
        self,
        prepared: PreparedRun,
        store: GapStore,
        judges: Judges,
        progress: Progress | None,
        note: Note | None,
    ) -> None:
        self.prepared, self.store, self.judges = prepared, store, judges
        self.progress, self._note = progress, note
        self.notes: list[str] = []

    def tell(self, text: str) -> None:
        """Keeps a note for the result and passes it on, once."""
        if text not in self.notes:
            self.notes.append(text)
            if self._note is not None:
                self._note(text)

    def go(
        self,
        open_cases: OpenCases,
        *,
        total: int | None,
        new_first: Iterator[CaseLine] | None,
        batch: Batch | None,
    ) -> Executed:
        """Runs to the end; an interrupt or error says which run keeps the rows."""
        run_id, variants = str(self.options.run_id), self.prepared.variants is not None
        try:
            if variants:
                return self._variants(open_cases, total)
            return self._one(open_cases, total=total, new_first=new_first, batch=batch)
        except KeyboardInterrupt as stop:
            which = f"runs {run_id}-*" if variants else f"run {run_id}"
            rest = "" if variants else f"; --resume {run_id} checks the rest"
            stop.add_note(f"{which} keeps the rows already stored{rest}")
            raise
        except VerifierError as exc:
            hint = resume_hint(self.store, run_id, variants=variants)
            if not hint:
                raise
            raise RunStopped(f"{exc}{hint}") from exc

    def _one(
        self,
        open_cases: OpenCases,
        *,
        total: int | None,
        new_first: Iterator[CaseLine] | None,
        batch: Batch | None,
    ) -> Executed:
        prepared = self.prepared
        assembled = assemble_run(
            prepared.loaded,
            self.store,
            target=prepared.target,
            judges=self.judges,
            sut=prepared.sut,
            options=self.options,
            sinks=self.sinks,
            progress=self.progress,
            note=self.tell,
            checked=True,
        )
        runner = assembled.runner
        status = getattr(runner.model_phase, "status", None)
        set_status = getattr(self.progress, "set_status", None)
        if status is not None and set_status is not None:
            set_status(status)
        if batch is not None:
            target, poll = prepared.target, batch.poll
            summary = run_with_batch(
                runner, open_cases, target=target, poll=poll, total=total, new_first=new_first
            )
        else:
            summary = run_sync(runner, every_case(open_cases), total=total, new_first=new_first)
        return Executed(summary, assembled.mode, self.notes, assembled.skipped)

    def _variants(self, open_cases: OpenCases, total: int | None) -> Executed:
        from verifier.run.variants import run_variants_sync

        prepared = self.prepared
        assert prepared.variants is not None
        baseline, summary = run_variants_sync(
            prepared.variants,
            prepared.loaded,
            self.store,
            open_cases(),
            sinks=self.sinks,
            progress=self.progress,
            total=total,
            judges=self.judges,
            target=prepared.target,
            options=self.options,
            note=self.tell,
        )
        mode = judge_mode(prepared.loaded, self.judges)[0]
        skipped = tuple(judged_claims(prepared.loaded)) if self.judges.mode == "off" else ()
        return Executed(summary, mode, self.notes, skipped, baseline_summary=baseline)


def _begin(
    store: GapStore,
    prepared: PreparedRun,
    judges: Judges,
    *,
    run_id: str | None,
    resume: Resume | None,
    sample: Sample | None,
) -> Begun:
    """The run's id and sample; a resumed run's, after checking it is resumed as it began.

    Raises:
        VerifierError: The run to resume is unknown, finished, of another contract, or
            was begun with other claims, judges, system or sample.
    """
    if resume is None:
        return Begun(run_id or new_run_id(), None, sample.seeded() if sample else None)
    loaded = prepared.loaded
    resumed_id = resolve_run_id(store, resume.run_id, contract_id=loaded.contract.contract)
    record = check_resumable(store, resumed_id, loaded.sha256)
    fraction, seed = resumed_sample(
        record.options, sample.fraction if sample else None, sample.seed if sample else None
    )
    sut = prepared.sut
    same_system(record.options, sut.spec if sut else None, sut.repeat if sut else None)
    same_choice(record.options, prepared.claims, judges.mode)
    return Begun(resumed_id, record, Sample(fraction, seed) if fraction is not None else None)


def _case_reader(
    prepared: PreparedRun,
    shard: ShardPart | None,
    sample: Sample | None,
    mapping: CaseMapping | None,
) -> OpenCases:
    """Reads the run's cases from line ``after`` on (``seen``: the ids taken before it):
    its shard's part, its sample, each joined with its baseline."""

    def open_cases(after: int = 0, seen: Any = None) -> Iterator[CaseLine]:
        if prepared.cases_path is not None:
            stream = read_cases(prepared.cases_path, after=after, seen=seen, mapping=mapping)
        else:
            stream = case_lines(iter(prepared.cases), mapping)
        if shard is not None:
            stream = in_shard(stream, shard.shard)
        if sample is not None and sample.seed is not None:
            stream = sample_cases(stream, sample.fraction, sample.seed)
        if prepared.baseline is None:
            return stream
        if prepared.matches is not None:
            prepared.matches.clear()  # a batch run reads the cases again
        return join_baseline(stream, prepared.baseline, prepared.matches)

    return open_cases


def _record(
    prepared: PreparedRun, given: Mapping[str, Any], sample: Sample | None, batch: Batch | None
) -> dict[str, Any]:
    """What the run records of how it was made, beside the caller's ``given``."""
    record = {**given, **prepared.cases_record}
    if batch is not None:
        record["batch"] = True
    if sample is not None:
        record.update(sample=sample.fraction, seed=sample.seed)
    if prepared.claims is not None:
        record["claims"] = prepared.claims
    if prepared.sut is not None:
        record["sut"] = masked_description(prepared.sut.spec)
        record["repeat"] = prepared.sut.repeat or prepared.sut.spec.repeat
    return record


def _total(prepared: PreparedRun, progress: Progress | None) -> int | None:
    """The lines of the cases file, for a progress bar's total (``None``: no bar, no file)."""
    path = prepared.cases_path
    if progress is None or not getattr(progress, "enabled", True) or path is None:
        return None
    if prepared.mapping is not None and prepared.mapping.format == "otlp":
        return None  # a line holds many spans
    try:
        with path.open("rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return None


def _already_ended(
    prepared: PreparedRun, begun: Begun, ended: ShardEnd, store: GapStore
) -> Executed:
    """A resumed shard that had finished before: nothing was checked; its part's totals."""
    loaded = prepared.loaded
    summary = RunSummary(
        run_id=begun.run_id,
        contract_id=loaded.contract.contract,
        contract_version=loaded.contract.version,
        contract_sha256=loaded.sha256,
        contract_path=str(loaded.path),
        threshold=float(loaded.contract.threshold),
        started_at="",
        total_cases=ended.total,
        passed_cases=ended.passed,
        failed_cases=ended.failed,
        store=store.location,
    )
    return Executed(summary, shard=ended, store=store.location)
