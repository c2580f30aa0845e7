"""What the ``check``, ``run`` and ``audit`` tools do, as plain blocking functions of
their validated arguments (the server calls them off its event loop).

Each returns the tool's structured answer, or raises :class:`ToolError` (or another
``VerifierError``) for a call it cannot answer: the server turns that into one line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.analyses.history import audit_history
from verifier.analyses.window import parse_window
from verifier.compare.calibration_check import CalibrationCheck
from verifier.contract.load import check_contract, load_contract
from verifier.errors import ContractError, Diagnostic
from verifier.gaps.store import open_store, resolve_run_id
from verifier.gaps.target import sqlite_path
from verifier.judge.phase import JudgeMode
from verifier.mcp_server.inputs import (
    MAX_FAILURES,
    AuditInput,
    CheckInput,
    CheckOutput,
    Problem,
    RunInput,
    RunOutput,
)
from verifier.mcp_server.root import Root, ToolError
from verifier.report.json_report import result_json
from verifier.results import CaseResult, RunSummary
from verifier.run.api import run_contract
from verifier.run.assembly import Judges

__all__ = ["Settings", "audit_tool", "check_tool", "run_tool"]


@dataclass(frozen=True)
class Settings:
    """What ``verifier mcp`` was started with.

    Attributes:
        root: The directory client paths are resolved against.
        store: The gap store (a SQLite file or a ``postgresql://`` URL).
        judges: The judges' mode (``None``: live when the keys are set, else replay).
        recordings: A recordings file every run reads (written in ``record``).
    """

    root: Root
    store: str
    judges: JudgeMode | None = None
    recordings: Path | None = None


def check_tool(settings: Settings, arguments: CheckInput) -> dict[str, Any]:
    """``verifier check`` of one contract: whether it loads, its problems and warnings."""
    root = settings.root
    path = root.file(arguments.contract, what="contract")
    notes: list[str] = []
    loaded, diagnostics = check_contract(path)
    if loaded is not None:
        calibrations = CalibrationCheck(settings.store, note=notes.append)
        diagnostics = [*diagnostics, *calibrations.warnings(loaded)]
    shown = [dataclasses.replace(d, file=root.shown(d.file)) for d in diagnostics]
    contract = loaded.contract if loaded is not None else None
    return CheckOutput(
        ok=loaded is not None,
        contract=contract.contract if contract else None,
        version=contract.version if contract else None,
        claims=len(contract.claims) if contract else None,
        problems=[_problem(d) for d in shown if d.severity == "error"],
        warnings=[_problem(d) for d in shown if d.severity == "warning"],
        notes=[root.message(note) for note in notes],
    ).model_dump()


def _problem(diagnostic: Diagnostic) -> Problem:
    return Problem(
        file=diagnostic.file,
        line=diagnostic.line,
        col=diagnostic.col,
        message=diagnostic.message,
    )


class _Failures:
    """A report sink keeping the first ``MAX_FAILURES`` results that did not pass."""

    def __init__(self) -> None:
        self.kept: list[dict[str, Any]] = []
        self.more = 0

    def add_case(self, case: CaseResult) -> None:
        for result in case.results:
            if result.status not in ("fail", "error"):
                continue
            if len(self.kept) < MAX_FAILURES:
                self.kept.append({"case": case.case_id, **result_json(result)})
            else:
                self.more += 1

    def finish(self, summary: RunSummary) -> None:
        return None


def run_tool(settings: Settings, arguments: RunInput) -> dict[str, Any]:
    """A run of the contract over the cases into the store, as ``verifier run`` makes it
    (the contract's own system under test is not started: cases carry their outputs).

    Raises:
        ToolError: A path outside the root or missing, a judges mode the server does
            not allow, or a contract that does not load (its first problem).
        VerifierError: The cases, the store, the claims chosen or the judges' keys.
    """
    root = settings.root
    path = root.file(arguments.contract, what="contract")
    cases: Path | list[dict[str, Any]] = (
        root.file(arguments.cases, what="cases")
        if isinstance(arguments.cases, str)
        else arguments.cases
    )
    mode = arguments.judges or settings.judges
    if mode in ("live", "record") and mode != settings.judges:
        raise ToolError(f"judges {mode!r} needs the server started with --judges {mode}")
    try:
        loaded = load_contract(path)
    except ContractError as exc:
        more = len(exc.diagnostics) - 1
        also = f" (and {more} more: the check tool lists them)" if more else ""
        raise ToolError(root.message(str(exc.diagnostics[0])) + also) from None
    failures = _Failures()
    result = run_contract(
        loaded,
        cases,
        store=settings.store,
        judges=Judges(mode=mode, recordings=settings.recordings),
        claims=arguments.claims,
        use_declared_sut=False,
        sinks=[failures],
        keep_cases=False,
        options_record={"mcp": "run"},
    )
    summary = result.summary
    total = summary.total_cases
    return RunOutput(
        run_id=summary.run_id,
        contract=summary.contract_id,
        version=summary.contract_version,
        total_cases=total,
        passed_cases=summary.passed_cases,
        failed_cases=summary.failed_cases,
        pass_rate=round(summary.passed_cases / total, 6) if total else 0.0,
        average_score=round(summary.average_score, 6),
        overall=None if summary.overall is None else summary.overall.as_dict(),
        claims={claim: tally.as_dict() for claim, tally in summary.breakdown.items()},
        findings=summary.findings_dict() or None,
        failures=failures.kept,
        more_failures=failures.more,
        judges=result.mode,
        head=summary.head,
        notes=[root.message(note) for note in result.notes],
        warnings=summary.warnings,
    ).model_dump()


def audit_tool(settings: Settings, arguments: AuditInput) -> dict[str, Any]:
    """``verifier audit --format json`` of the store: integrity, drift and alerts.

    Raises:
        ToolError: No store yet (a SQLite file that does not exist or is empty).
        VerifierError: The store cannot be read, or the run is not in it.
    """
    path = sqlite_path(settings.store)
    # Opening a missing SQLite file would create an empty store and report it sound.
    if path is not None and (not Path(path).is_file() or Path(path).stat().st_size == 0):
        raise ToolError(f"no store at {settings.root.shown(path)} yet: run a contract first")
    try:
        window = parse_window(arguments.window)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
    with open_store(settings.store) as gap_store:
        run_id = arguments.run and resolve_run_id(gap_store, arguments.run)
        report = audit_history(gap_store, run_id=run_id, window=window)
    return report.as_dict()
