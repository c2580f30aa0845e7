"""Where ``verifier run`` writes: the report and PR comment files (whole when the run
ends, or not at all), the stdout kept for the report from a Python system under test,
and the sinks of the report and of CI over the run's store.

Imported only when ``run`` runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from verifier._internal.atomic import AtomicFile
from verifier.cli._options import fail
from verifier.cli._run_gate import gated_writer, write_gate
from verifier.cli._run_parts import StdoutGuard, ci_sinks
from verifier.contract.load import LoadedContract
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.report import ReportWriter

if TYPE_CHECKING:  # the gate's statistics are imported when a gate decides (ADR 0045)
    from verifier.compare.gate import GateDecision

__all__ = ["RunOutputs"]


class RunOutputs:
    """The run's report and PR comment, written to files whole when the run ends (a run
    stopped early leaves the previous files as they were, even when ``--against``
    names the very file ``--out`` replaces), and its CI sinks once the store is open.

    Exits 2 when a file cannot be prepared.
    """

    def __init__(self, out: Path | None, pr_comment: Path | None, *, python_sut: bool) -> None:
        self.out_file = self.comment_file = None
        try:
            self.out_file = AtomicFile(out, "the report") if out else None
            self.comment_file = AtomicFile(pr_comment, "the PR comment") if pr_comment else None
        except VerifierError as exc:
            if self.out_file is not None:
                self.out_file.discard()
            fail(str(exc))
        # A Python system under test runs in this process: whatever it prints would land
        # in the report on stdout, so stdout is kept for the report and its prints go
        # to stderr.
        self.guard = StdoutGuard() if python_sut else None
        self.stream: IO[str] = (
            self.out_file.stream
            if self.out_file
            else (self.guard.report if self.guard else sys.stdout)
        )
        self.writer: ReportWriter | None = None
        self.ci: list[Any] = []

    def sinks(
        self,
        fmt: str,
        gated: bool,
        loaded: LoadedContract,
        cases: Path,
        *,
        begins: Callable[[], None],
        **ci: Any,
    ) -> Any:
        """The function making the run's sinks over its open store: the report writer
        (held for a gate's decision in JSON) and what CI asked for. The library makes
        them once every check has passed, as the run begins: ``begins`` is told then."""

        def over(gap_store: GapStore) -> list[Any]:
            begins()
            self.writer = gated_writer(fmt, self.stream, gated)  # type: ignore[arg-type]
            comment = self.comment_file.stream if self.comment_file else None
            self.ci = ci_sinks(loaded, gap_store, cases_path=cases, comment_stream=comment, **ci)
            return [self.writer, *self.ci]

        return over

    def write_gate(self, decision: GateDecision | None, fmt: str) -> None:
        """Puts a gate's decision into the report (held for it in JSON)."""
        if decision is not None and self.writer is not None:
            write_gate(decision, fmt, self.stream, self.writer)

    def end(self, completed: bool) -> None:
        """Restores stdout, and keeps the files when the run completed, else discards them."""
        if self.guard is not None:
            self.guard.restore()
            self.guard = None
        for written in (self.out_file, self.comment_file):
            if written is None:
                continue
            if not completed:
                written.discard()
                continue
            try:
                written.commit()
            except VerifierError as exc:
                fail(str(exc))
        self.out_file = self.comment_file = None
