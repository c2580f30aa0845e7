"""Runs started through the API: each one an asyncio task, at most ``max_runs`` at once.

The run itself is the ordinary runner in a worker thread (with its own event loop), so
a run's rubric phase, which is CPU work, never stalls the server's loop. The report is
the JSON report of ``verifier run --format json``, written straight to a file of the
server's report folder (see :mod:`verifier.server.kept_reports`): neither a finished
run nor one in progress holds its report in memory. Finished runs stay retrievable up
to ``kept_runs`` runs and ``kept_bytes`` of reports, the oldest dropped first. Gap
rows go to the server's store as in any run.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from verifier.cases import CaseLine, case_lines
from verifier.errors import VerifierError
from verifier.logs import get_logger
from verifier.server.contracts import ResolvedContract
from verifier.server.kept_reports import ReportFolder
from verifier.server.settings import ServerSettings

if TYPE_CHECKING:
    from verifier.judge.phase import JudgeMode

log = get_logger("verifier.server")


UNUSABLE = (
    "the run could not be carried out: the server's store, a judge template or the "
    "recordings are unusable (see the server log)"
)


class TooManyRuns(Exception):
    """Every run slot is taken."""


@dataclass
class RunEntry:
    """What the server knows of one run; updated only by its own task."""

    run_id: str
    contract: dict[str, Any]
    started_at: str
    status: str = "running"
    finished_at: str | None = None
    report_bytes: int | None = None
    """Size of the report on disk; ``None`` while running, or when the run failed."""
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "status": self.status,
            "contract": self.contract,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "report": None,
            "error": self.error,
        }


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class RunManager:
    """Starts runs in the background and answers for them by id."""

    def __init__(self, settings: ServerSettings) -> None:
        self._settings = settings
        # In order of start while running; a run moves to the end when it finishes, so
        # the finished ones are in order of finishing.
        self._runs: OrderedDict[str, RunEntry] = OrderedDict()
        self._reports = ReportFolder()

    def get(self, run_id: str) -> RunEntry | None:
        return self._runs.get(run_id)

    def open_report(self, entry: RunEntry) -> IO[bytes] | None:
        """The report file of a finished run for reading, or ``None`` (no report)."""
        return None if entry.report_bytes is None else self._reports.open(entry.run_id)

    def start(self, resolved: ResolvedContract, cases: Sequence[dict[str, Any]]) -> RunEntry:
        """Starts a run of ``resolved`` over ``cases`` and returns it, still running.

        Raises:
            TooManyRuns: ``max_runs`` runs are in progress.
        """
        from verifier.engine.runner import new_run_id

        running = sum(1 for entry in self._runs.values() if entry.status == "running")
        if running >= self._settings.max_runs:
            raise TooManyRuns
        loaded = resolved.loaded
        entry = RunEntry(
            run_id=new_run_id(),
            contract={
                "id": loaded.contract.contract,
                "version": loaded.contract.version,
                "sha256": loaded.sha256,
            },
            started_at=_now(),
        )
        spec = loaded.contract.cases  # posted log lines are read through its mapping
        mapping = None if spec is None else spec.mapping(dt.datetime.now(dt.UTC))
        lines = list(case_lines(cases, mapping))
        self._runs[entry.run_id] = entry
        entry.task = asyncio.create_task(self._execute(entry, resolved, lines))
        return entry

    async def aclose(self) -> None:
        """Waits for the runs in progress (a worker thread cannot be stopped midway), then
        removes the reports: nothing can ask for them once the server is gone."""
        tasks = [e.task for e in self._runs.values() if e.task is not None and not e.task.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._runs.clear()
        self._reports.remove()

    async def _execute(
        self, entry: RunEntry, resolved: ResolvedContract, lines: list[CaseLine]
    ) -> None:
        settings = self._settings
        try:
            entry.report_bytes = await asyncio.to_thread(
                self._run_into_report,
                resolved,
                lines,
                run_id=entry.run_id,
                store=settings.store,
                mode=settings.judge_mode,
            )
            entry.status = "finished"
        except VerifierError as exc:
            # The reason may name the server's files; it goes to the log only.
            entry.status, entry.error = "failed", UNUSABLE
            log.warning("run failed", run_id=entry.run_id, error=str(exc).splitlines()[0])
        except Exception as exc:
            entry.status, entry.error = "failed", "internal error (see the server log)"
            log.error("run failed", run_id=entry.run_id, error=type(exc).__name__)
        finally:
            entry.finished_at = _now()
            entry.task = None
            self._runs.move_to_end(entry.run_id)
            self._forget_old()

    def _run_into_report(
        self,
        resolved: ResolvedContract,
        lines: list[CaseLine],
        *,
        run_id: str,
        store: str,
        mode: JudgeMode | None,
    ) -> int:
        """Runs the contract with its report written to the report folder; its size."""
        target = self._reports.writer(run_id)
        try:
            execute_run(resolved, lines, run_id=run_id, store=store, mode=mode, out=target.stream)
            target.commit()
        except BaseException:
            target.discard()
            raise
        return self._reports.file(run_id).stat().st_size

    def _forget_old(self) -> None:
        """Drops the oldest finished runs beyond ``kept_runs`` or ``kept_bytes`` (the
        newest one stays, so a run's report can be read at least until the next ends)."""
        finished = [e for e in self._runs.values() if e.status != "running"]
        count = len(finished)
        size = sum(e.report_bytes or 0 for e in finished)
        for entry in finished[:-1]:
            if count <= self._settings.kept_runs and size <= self._settings.kept_bytes:
                break
            del self._runs[entry.run_id]
            self._reports.drop(entry.run_id)
            count -= 1
            size -= entry.report_bytes or 0


def execute_run(
    resolved: ResolvedContract,
    lines: list[CaseLine],
    *,
    run_id: str,
    store: str,
    mode: JudgeMode | None,
    out: IO[str],
) -> None:
    """Runs a contract over cases into ``store``, its JSON report to ``out`` (blocking).

    The report is streamed as the run goes (cases spooled to a temporary file, then
    copied to ``out``), so the run holds one chunk of cases' results at a time.

    Raises:
        VerifierError: The store, a judge template or the recordings cannot be used.
    """
    from verifier.report.json_report import JsonReportWriter
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges

    run_contract(
        resolved.loaded,
        lines,
        store=store,
        # A stored contract's recordings are read as `verifier run` reads them (replay
        # and record only); an inline contract has none.
        judges=Judges(mode=mode, recordings_beside_contract=resolved.recordings is not None),
        # The server runs what a request carries; a contract's own system is not started.
        use_declared_sut=False,
        run_id=run_id,
        sinks=[JsonReportWriter(out)],
        keep_cases=False,
        options_record={"api": "POST /v1/runs"},
    )
