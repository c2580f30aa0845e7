"""``verifier run --gate``: the report held for the gate's verdict, and the verdict
written into it (the library checks the gate and decides).

Imported only when ``run`` runs.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from verifier.report import ReportFormat, ReportWriter, make_writer
from verifier.report.json_report import JsonReportWriter

if TYPE_CHECKING:  # the gate's statistics are imported when a gate decides (ADR 0045)
    from verifier.compare.gate import GateDecision

__all__ = ["gated_writer", "write_gate"]


def gated_writer(fmt: ReportFormat, out: IO[str], gated: bool) -> ReportWriter:
    """The run's report writer; a JSON report under a gate is held for its decision."""
    if fmt == "json" and gated:
        return JsonReportWriter(out, held=True)
    return make_writer(fmt, out)


def write_gate(decision: GateDecision, fmt: str, report: IO[str], writer: ReportWriter) -> None:
    """Puts the gate's verdict into the report (``finish_run`` says it on stderr too): a
    JSON report gets the ``gate`` object of ``compare --gate --format json``, a Markdown
    report ends with it."""
    if isinstance(writer, JsonReportWriter):
        writer.release({"gate": decision.as_json()})
    elif fmt == "markdown":
        report.write("\n" + decision.markdown())
