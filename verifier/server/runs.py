"""Runs started through the API: each one an asyncio task, at most ``max_runs`` at once.

The run itself is the ordinary runner in a worker thread (with its own event loop), so
a run's rubric phase, which is CPU work, never stalls the server's loop. The report is
the JSON report of ``verifier run --format json``; finished runs are kept in memory up
to ``kept_runs``, the oldest dropped first. Gap rows go to the server's store as in
any run.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from verifier.cases import CaseLine
from verifier.errors import VerifierError
from verifier.logs import get_logger
from verifier.server.contracts import ResolvedContract
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
    report: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "status": self.status,
            "contract": self.contract,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "report": self.report,
            "error": self.error,
        }


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class RunManager:
    """Starts runs in the background and answers for them by id."""

    def __init__(self, settings: ServerSettings) -> None:
        self._settings = settings
        self._runs: OrderedDict[str, RunEntry] = OrderedDict()

    def get(self, run_id: str) -> RunEntry | None:
        return self._runs.get(run_id)

    def start(self, resolved: ResolvedContract, cases: Sequence[dict[str, Any]]) -> RunEntry:
        """Starts a run of ``resolved`` over ``cases`` and returns it, still running.

        Raises:
            TooManyRuns: ``max_runs`` runs are in progress.
        """
        from verifier.runner import new_run_id

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
        lines = [CaseLine(n, str(case["id"]), case) for n, case in enumerate(cases, start=1)]
        self._runs[entry.run_id] = entry
        entry.task = asyncio.create_task(self._execute(entry, resolved, lines))
        self._forget_old()
        return entry

    async def aclose(self) -> None:
        """Waits for the runs in progress (a worker thread cannot be stopped midway)."""
        tasks = [e.task for e in self._runs.values() if e.task is not None and not e.task.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _execute(
        self, entry: RunEntry, resolved: ResolvedContract, lines: list[CaseLine]
    ) -> None:
        settings = self._settings
        try:
            entry.report = await asyncio.to_thread(
                execute_run,
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

    def _forget_old(self) -> None:
        finished = [k for k, e in self._runs.items() if e.status != "running"]
        for run_id in finished[: max(0, len(finished) - self._settings.kept_runs)]:
            del self._runs[run_id]


def execute_run(
    resolved: ResolvedContract,
    lines: list[CaseLine],
    *,
    run_id: str,
    store: str,
    mode: JudgeMode | None,
) -> dict[str, Any]:
    """Runs a contract over cases into ``store`` and returns the JSON report (blocking).

    Raises:
        VerifierError: The store, a judge template or the recordings cannot be used.
    """
    from verifier.contract.models import claim_kind
    from verifier.gaps.store import open_store
    from verifier.judge.setup import default_mode, make_judge_phase
    from verifier.llm.limits import CallLimits
    from verifier.report.json_report import JsonReportWriter
    from verifier.runner import Runner, RunOptions, run_sync

    loaded = resolved.loaded
    out = io.StringIO()
    with open_store(store) as gap_store:
        phase = None
        if any(claim_kind(c) != "rubric" for c in loaded.contract.claims):
            mode = mode or default_mode(loaded)[0]
            phase = make_judge_phase(
                loaded,
                mode=mode,
                store_path=store,
                recordings=resolved.recordings,
                limits=CallLimits(),
                run_id=run_id,
            )
        options = RunOptions(run_id=run_id, options_record={"api": "POST /v1/runs", "judges": mode})
        runner = Runner(
            loaded, gap_store, sinks=[JsonReportWriter(out)], model_phase=phase, options=options
        )
        run_sync(runner, lines)
    report: dict[str, Any] = orjson.loads(out.getvalue())
    return report
