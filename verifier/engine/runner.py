"""The runner: cases in chunks, rubric claims first, then model-backed claims.

For each chunk of cases, phase 1 checks every rubric claim in-process (no I/O);
phase 2 handles judge and comparative claims for the same chunk. A chunk that waits
on something (a system under test, judges) has all its cases in flight at once, each
going through its own phases. Each chunk's results are appended to the store as gap
rows before the next chunk starts, so an interrupted run keeps everything already
checked.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from verifier._internal.gc import gc_frozen
from verifier.cases import CaseLine
from verifier.contract.json_fields import JsonFields, unparsed_results
from verifier.contract.load import LoadedContract
from verifier.engine.claim_checks import RubricPass, UnavailableModelPhase, line_error_results
from verifier.engine.missing_fields import MissingFields, named_paths
from verifier.engine.plan import Plan, weighted_score
from verifier.engine.ports import ModelPhase, OutputSource, Progress, ReportSink
from verifier.engine.run_record import finish_run, now_utc, start_run
from verifier.engine.stoppable import run_stoppable
from verifier.engine.stored_cases import StoredLookup
from verifier.gaps.content import RecordPolicy, build_content
from verifier.gaps.recorded_case import recorded_case
from verifier.gaps.redact import claim_paths
from verifier.gaps.row_fields import ROW_SCHEMA
from verifier.gaps.row_policy import RowPolicy
from verifier.gaps.shards import Shard
from verifier.gaps.store import GapStore, RunStatus
from verifier.logs import get_logger
from verifier.results import CaseResult, ClaimResult, RunSummary

log = get_logger("verifier.engine.runner")


@dataclass(frozen=True)
class RunOptions:
    """How to run.

    Attributes:
        threshold: Overrides the contract's threshold when set.
        chunk_size: Cases per chunk (a chunk is checked and persisted together).
        run_id: A run id to use instead of a fresh one.
        options_record: What to record about the invocation in the runs table.
        record: How much of each case's content to keep (see ``verifier.gaps.content``);
            ``None``: as the contract's ``record:`` block says.
        shard: The part of a sharded run this runner writes (the caller gives it only
            its own cases, so a resumed shard looks up only its own stored ones).
    """

    threshold: float | None = None
    chunk_size: int = 500
    run_id: str | None = None
    resume: bool = False
    options_record: Mapping[str, Any] | None = None
    record: RecordPolicy | None = None
    shard: Shard | None = None


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus random suffix."""
    now = dt.datetime.now(dt.UTC)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


class Runner:
    """Runs one contract over a stream of cases into a store and report sinks.

    ``plan`` is the contract's plan (``build_plan``): a run builds it once and gives
    the same one to its judge phase, so no predicate is prepared twice.
    """

    def __init__(
        self,
        loaded: LoadedContract,
        store: GapStore,
        *,
        plan: Plan,
        sinks: Sequence[ReportSink] = (),
        progress: Progress | None = None,
        model_phase: ModelPhase | None = None,
        sut: OutputSource | None = None,
        options: RunOptions = RunOptions(),
    ) -> None:
        self.loaded = loaded
        self.plan = plan
        self.store = store
        self.sinks = sinks
        self.progress = progress
        self.model_phase = model_phase or UnavailableModelPhase(self.plan)
        self.sut = sut
        self.options = options
        contract = loaded.contract
        self.threshold = options.threshold if options.threshold is not None else contract.threshold
        self.run_id = options.run_id or new_run_id()
        # Read once from the plan: the chunk loop uses them for every case.
        self._rubric_pass = RubricPass(self.plan)
        self._order = tuple(p.id for p in self.plan.order)
        self._kinds = {p.id: p.kind for p in self.plan.order}
        self._json = JsonFields.of(contract)
        self._weights = tuple(p.weight for p in self.plan.order)
        self._stored: StoredLookup | None = None
        self._fresh: set[int] = set()  # lines a resumed run checked before reporting any
        self.record = options.record or contract.record.policy()
        # A judge phase knows its templates (judges off, there are none to read), a
        # system's stage the spec it runs (the contract's or a variant's).
        shown = getattr(self.model_phase, "template_case_paths", None)
        self._missing = MissingFields(
            named_paths(
                self.plan,
                template_paths=shown() if callable(shown) else {},
                redact=self.record.redact,
                parse_json=contract.parse_json,
                sut_when=_sut_when(sut),
            )
        )
        # Every result passes through the record policy before it is stored or shown.
        row_policy = RowPolicy(
            self.record,
            lambda: {p.id: claim_paths(p.claim.model_dump()) for p in self.plan.rubric},
            contract.model_dump,
        )
        self._row_policy = row_policy if row_policy.active else None

    async def run(
        self,
        cases: Iterable[CaseLine],
        *,
        total: int | None = None,
        new_first: Iterable[CaseLine] | None = None,
        prepare: Callable[[], Awaitable[None]] | None = None,
    ) -> RunSummary:
        """Checks every case, persisting each chunk, and returns the run's totals.

        Args:
            cases: The run's cases, in line order.
            total: How many there are, for the progress bar.
            new_first: For a resumed run, cases (in line order) whose unstored ones are
                checked and stored before ``cases`` are reported: the cases a resume
                has to check come first, however many were stored.
            prepare: Awaited once the run is recorded, before any case: work the run
                pays for (a batch of judge requests) belongs to a run that can be
                resumed, whenever it is stopped.
        """
        summary = self.begin()
        status: RunStatus = "interrupted"
        try:
            if prepare is not None:
                await prepare()
            if self.progress:
                self.progress.start(total, len(self.plan.model))
            with gc_frozen():
                passes = [(new_first, False)] if new_first is not None and self._stored else []
                for stream, report in [*passes, (cases, True)]:
                    iterator = iter(stream)
                    while chunk := list(islice(iterator, self.options.chunk_size)):
                        await self.check_chunk(chunk, summary, report=report)
                        # A rubric-only chunk never waits on anything, so without this
                        # the loop would not get a turn to deliver a Ctrl-C (a
                        # cancellation) until every case was checked and the run
                        # recorded as finished.
                        await asyncio.sleep(0)
            status = "finished"
        finally:
            if self.progress:
                self.progress.close()
            await self.end(summary, status=status)
        for sink in self.sinks:
            sink.finish(summary)
        return summary

    def begin(self) -> RunSummary:
        """Records the run as started in the store and returns its summary, empty so far.

        ``run`` is ``begin``, ``check_chunk`` for every chunk, then ``end``; a caller
        that receives cases one at a time (the pytest plugin) makes these calls itself.
        """
        contract = self.loaded.contract
        summary = start_run(
            self.store,
            self.loaded,
            self.plan,
            run_id=self.run_id,
            threshold=self.threshold,
            options_record=self.options.options_record,
            record=self.record,
        )
        log.info(
            "run started", run_id=self.run_id, contract=contract.contract, version=contract.version
        )
        if self.options.resume:
            # Nothing is read yet: stored cases are looked up a chunk at a time.
            self._stored = StoredLookup(
                self.store,
                self.run_id,
                self.plan,
                self.threshold,
                content=self.record.content == "full",
            )
            log.info("run resumed", run_id=self.run_id)
        return summary

    async def end(self, summary: RunSummary, *, status: RunStatus = "finished") -> None:
        """Closes the judge phase and records the run's end and totals in the store.

        The report sinks are not told: ``run`` finishes them once the run succeeded.
        """
        summary.finished_at = now_utc()
        summary.interrupted = status != "finished"
        summary.warnings = self._missing.warnings(summary.breakdown)
        stats = getattr(self.model_phase, "stats", None)
        if (position_warnings := getattr(stats, "position_warnings", None)) is not None:
            summary.warnings += position_warnings()
        if stats is not None and self.plan.model:
            summary.judge_usage = stats.as_dict()
        close = getattr(self.model_phase, "aclose", None)
        if close is not None:
            await close()
        if self.sut is not None:
            await self.sut.aclose()
        finish_run(self.store, summary, status=status)
        log.info(
            "run " + status,
            run_id=self.run_id,
            cases=summary.total_cases,
            passed=summary.passed_cases,
            failed=summary.failed_cases,
        )

    async def check_chunk(
        self, chunk: Sequence[CaseLine], summary: RunSummary, *, report: bool = True
    ) -> list[CaseResult]:
        """Checks one chunk of cases and stores its gap rows before returning.

        Each case is added to ``summary`` and to every sink, and returned: first the
        cases a resumed run had already stored (as stored), then the others in order.
        With ``report`` false (a resumed run's new work, reported later from the
        store), the stored cases are passed over and none is added or returned.

        Kept inline: the per-row hot loop (its attributes read once into locals).
        """
        replayed: list[CaseResult] = []
        stored = self._stored
        if stored is not None:
            # Cases an interrupted run already stored are reported, not redone.
            if report:
                found = stored.stored(chunk)
                replayed = [found[line] for line in sorted(found)]
                self._replayed(replayed, summary)
                done = set(found)
            else:
                done = stored.stored_lines(chunk)
            chunk = [line for line in chunk if line.line not in done]
            if not chunk:
                return replayed
        # A case the system under test failed on comes back without its fields, and
        # its reason (a stderr tail) may quote them: it is scrubbed of them all the same.
        given: dict[int, dict[str, Any]] = {}
        if self.sut is not None and self._row_policy is not None:
            given = {line.line: line.case for line in chunk if line.case is not None}
        plan = self.plan
        results_by_line: dict[int, dict[str, ClaimResult]]
        one_by_one = self.sut is not None or bool(plan.model)
        if one_by_one:
            # After the resumed cases are set aside: a stored case is not produced again.
            checked = await asyncio.gather(*(self._check_case(line) for line in chunk))
            chunk = [line for line, _ in checked]
            results_by_line = {line.line: r for line, r in checked if r is not None}
        else:
            unparsed: dict[int, dict[str, str]] = {}
            if self._json is not None:
                chunk, unparsed = self._json.parse_chunk(chunk)
            results_by_line = {
                line.line: self._rubric(line.case, unparsed.get(line.line))
                for line in chunk
                if line.case is not None
            }
        order = self._order
        weights = self._weights
        threshold = self.threshold
        run_id = self.run_id
        recorded_at = now_utc()
        contract_id = self.loaded.contract.contract
        contract_version = self.loaded.contract.version
        contract_sha256 = self.loaded.sha256
        drafts: list[dict[str, Any]] = []
        add_draft = drafts.append
        cases: list[CaseResult] = []
        contents: dict[str, bytes] = {}
        policy = self.record
        row_policy = self._row_policy
        missing = self._missing
        for line in chunk:
            content_sha: str | None = None
            body: bytes | None = None
            scrub = None
            if row_policy is not None:
                read = line.case if line.case is not None else given.get(line.line)
                scrub = row_policy.for_case(read) if read is not None else None
            if line.case is not None:
                made = build_content(line.case, policy)
                if made is not None:
                    content_sha, body = made
                    if body:
                        contents[content_sha] = body
            results = results_by_line.get(line.line) or line_error_results(plan, line)
            ordered = tuple([results[claim_id] for claim_id in order])
            sut = line.sut
            if sut is not None:
                # Where the output came from belongs to every result of the case, in
                # the stored rows and in the reports alike.
                ordered = tuple(
                    ClaimResult(r.claim_id, r.kind, r.status, r.score, r.reason,
                                {**r.evidence, "sut": sut})
                    for r in ordered
                )  # fmt: skip
            if scrub is not None:
                # Reports get the scrubbed results too: they end up in CI logs and PR
                # comments, and a resumed run reports what the store holds.
                ordered = tuple(map(scrub, ordered))
            score, ok = weighted_score(weights, ordered, threshold)
            case_id = line.case_id
            kept = recorded_case(line.case, policy, body)
            overall = plan.case_overall(ordered)
            cases.append(CaseResult(case_id, line.line, ordered, score, ok, kept, overall))
            if line.case is not None:
                missing.add(line.case, ordered)
            if not report:
                self._fresh.add(line.line)
            # Run ids are unique per store and a run checks each claim once per case
            # line, so the row id needs no random part, and it tells an auditor where
            # the row came from.
            row_prefix = f"{run_id}:{line.line}:"
            for result in ordered:
                add_draft(
                    {
                        "schema": ROW_SCHEMA,
                        "row_id": row_prefix + result.claim_id,
                        "run_id": run_id,
                        "recorded_at": recorded_at,
                        "contract_id": contract_id,
                        "contract_version": contract_version,
                        "contract_sha256": contract_sha256,
                        "case_id": case_id,
                        "content_sha256": content_sha,
                        "claim_id": result.claim_id,
                        "kind": result.kind,
                        "status": result.status,
                        "score": result.score,
                        "reason": result.reason,
                        "evidence": result.evidence,
                    }
                )
        self.store.append(drafts, contents)
        if self.progress and not one_by_one:
            self.progress.advance(len(chunk))
        if not report:
            return []
        sinks = self.sinks
        add_case = summary.add_case
        for case in cases:
            add_case(case)
            for sink in sinks:
                sink.add_case(case)
        return [*replayed, *cases]

    def _replayed(self, cases: list[CaseResult], summary: RunSummary) -> None:
        """Reports stored cases; those this process checked count on the bar once."""
        done = 0
        for case in cases:
            summary.add_case(case)
            if case.line in self._fresh:
                self._fresh.discard(case.line)  # its missing fields were counted then
            else:
                done += 1
                self._missing.add(case.content, case.results)
            for sink in self.sinks:
                sink.add_case(case)
        if self.progress and done:
            self.progress.advance(done)
            self.progress.judged(done * len(self.plan.model))

    def _rubric(
        self, case: Mapping[str, Any], unparsed: Mapping[str, str] | None
    ) -> dict[str, ClaimResult]:
        """The rubric results of ``case``; ``unparsed``: the claims reading a field whose
        JSON text did not parse, each an error (model-backed ones too, so none is asked)."""
        results = self._rubric_pass(case, unparsed)
        return unparsed_results(results, unparsed, self._kinds) if unparsed else results

    async def _check_case(self, line: CaseLine) -> tuple[CaseLine, dict[str, ClaimResult] | None]:
        """One case of a chunk that waits on something (a system under test, judges):
        its output, then its rubric claims, then its model-backed claims.

        Every case of the chunk is in flight at once (the system's and the judges'
        limits bound the calls), so each counts on the progress bar when it is done,
        not the whole chunk when its slowest call returns. Returns the case as
        produced and its results (``None``: the case is unusable).
        """
        if self.sut is not None:
            (line,) = await self.sut.produce([line])
        reasons: dict[str, str] | None = None
        if self._json is not None:
            (line,), unparsed = self._json.parse_chunk([line])
            reasons = unparsed.get(line.line)
        results: dict[str, ClaimResult] | None = None
        if line.case is not None:
            # A judge claim already decided by unparsable JSON text is not asked: no call.
            results = self._rubric(line.case, reasons)
            if self.plan.model:
                (model,) = await self.model_phase.evaluate([line], [results])
                results = {**results, **model}
                if reasons:
                    results = unparsed_results(results, reasons, self._kinds)
        if self.progress is not None:
            self.progress.judged(len(self.plan.model))  # an unusable case's are settled too
            self.progress.advance(1)
        return line, results


def run_sync(
    runner: Runner,
    cases: Iterable[CaseLine],
    *,
    total: int | None = None,
    new_first: Iterable[CaseLine] | None = None,
) -> RunSummary:
    """Thin synchronous wrapper over ``Runner.run``, stopped by Ctrl-C or SIGTERM.

    Raises:
        KeyboardInterrupt: Ctrl-C stopped the run (recorded as interrupted).
        verifier.engine.stoppable.Terminated: SIGTERM stopped the run (recorded as interrupted).
    """
    return run_stoppable(runner.run(cases, total=total, new_first=new_first))


def _sut_when(sut: OutputSource | None) -> str | None:
    """The ``when`` path of the system a run starts (``None``: none, or no ``when``)."""
    when = getattr(getattr(sut, "spec", None), "when", None)
    return when if isinstance(when, str) else None
