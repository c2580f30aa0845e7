"""What the pytest plugin runs: one store run per contract file, one case per test item.

A pytest session (each xdist worker is its own) opens one gap store and one event
loop. The first item of a contract file begins a run of that contract; every item
checks its own case as a one-case chunk of that run, so only the selected cases are
checked and each is stored as it finishes. The runs end when the session does.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.cases import CaseLine
    from verifier.contract.load import LoadedContract
    from verifier.engine.runner import Runner
    from verifier.gaps.store import GapStore, RunStatus
    from verifier.judge.phase import JudgeMode
    from verifier.results import CaseResult, RunSummary


@dataclass
class _ContractRun:
    runner: Runner
    summary: RunSummary


def worker_store(target: str, worker: str | None) -> str:
    """The store target of one xdist worker: a SQLite file gets the worker's id before
    its suffix (``gaps.db`` -> ``gaps.gw0.db``), so workers never share a file; a
    PostgreSQL URL is shared (the server orders concurrent appends)."""
    from verifier.gaps.store import is_postgres_url

    if worker is None or is_postgres_url(target):
        return target
    prefix = "sqlite:///" if target.startswith("sqlite:///") else ""
    path = Path(target.removeprefix(prefix))
    return prefix + str(path.with_name(f"{path.stem}.{worker}{path.suffix}"))


@dataclass
class PytestRuns:
    """The runs of one pytest session (or xdist worker).

    Attributes:
        store_target: The store named by ``--verifier-store`` (already made per
            worker), or ``None`` for a temporary SQLite file removed at the end.
        judge_mode: ``--verifier-judges``, or ``None`` for the default of
            ``verifier run`` (live with an API key, else replay).
        notes: Things the user should know (why judges replay), shown once.
        run_ids: The runs begun, one per contract file that had an item run.
        location: Where the rows went, for messages (``None`` until a store opened).
    """

    store_target: str | None
    judge_mode: JudgeMode | None = None
    notes: list[str] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    location: str | None = None
    _runs: dict[Path, _ContractRun] = field(default_factory=dict)
    _store: GapStore | None = None
    _target: str = ""
    _temp_dir: str | None = None
    _loop: asyncio.AbstractEventLoop | None = None
    _configured_logging: bool = False

    @property
    def temporary(self) -> bool:
        return self.store_target is None

    def check(self, loaded: LoadedContract, cases: Path, line: CaseLine) -> CaseResult:
        """Checks one case in the run of its contract file, stored before returning."""
        run = self._runs.get(loaded.path) or self._begin(loaded, cases)
        results = self._event_loop().run_until_complete(run.runner.check_chunk([line], run.summary))
        return results[0]

    def run_id(self, loaded: LoadedContract) -> str | None:
        run = self._runs.get(loaded.path)
        return run.runner.run_id if run is not None else None

    def close(self, *, interrupted: bool) -> None:
        """Ends every run, closes the store and the loop; removes a temporary store."""
        status: RunStatus = "interrupted" if interrupted else "finished"
        try:
            loop = self._loop
            for run in self._runs.values():
                if loop is not None:
                    loop.run_until_complete(run.runner.end(run.summary, status=status))
            self._runs.clear()
        finally:
            if self._loop is not None:
                self._loop.run_until_complete(self._loop.shutdown_asyncgens())
                self._loop.run_until_complete(self._loop.shutdown_default_executor())
                self._loop.close()
                self._loop = None
            if self._store is not None:
                self._store.close()
                self._store = None
            if self._temp_dir is not None:
                shutil.rmtree(self._temp_dir, ignore_errors=True)
                self._temp_dir = None
            if self._configured_logging:
                import structlog

                structlog.reset_defaults()
                self._configured_logging = False

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        return self._loop

    def _open_store(self) -> GapStore:
        if self._store is None:
            from verifier.gaps.store import open_store

            if self.store_target is None:
                self._temp_dir = tempfile.mkdtemp(prefix="verifier-pytest-")
                self._target = os.path.join(self._temp_dir, "gaps.db")
            else:
                self._target = self.store_target
                parent = Path(self._target.removeprefix("sqlite:///")).parent
                if "://" not in self._target or self._target.startswith("sqlite:"):
                    parent.mkdir(parents=True, exist_ok=True)
            self._store = open_store(self._target)
            self.location = self._store.location
        return self._store

    def _begin(self, loaded: LoadedContract, cases: Path) -> _ContractRun:
        from verifier.engine.runner import RunOptions
        from verifier.logs import is_configured, route_to_standard_logging
        from verifier.run.assembly import Judges, assemble_run, declared_sut

        if not self._runs and not is_configured():
            # Unconfigured, structlog prints to stdout; pytest's log capture is the
            # place for a run's log lines. Undone when the session ends.
            route_to_standard_logging()
            self._configured_logging = True
        store = self._open_store()
        assembled = assemble_run(
            loaded,
            store,
            target=self._target,
            judges=Judges(mode=self.judge_mode),
            sut=declared_sut(loaded),
            options=RunOptions(chunk_size=1, options_record={"cases": str(cases), "via": "pytest"}),
            note=self._note,
        )
        runner = assembled.runner
        run = _ContractRun(runner, runner.begin())
        self._runs[loaded.path] = run
        self.run_ids.append(runner.run_id)
        return run

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
