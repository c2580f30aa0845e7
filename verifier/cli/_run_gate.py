"""``verifier run --gate``: the checks before the run, and the verdict after it.

Imported only when ``run`` runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING

from verifier.cli._options import fail
from verifier.cli._run_inputs import RunInputs
from verifier.compare.gate_file import (
    Gate,
    cases_sha256,
    read_gate,
    refuse_changed,
    refuse_changed_files,
)
from verifier.contract.schema_files import schema_file_hashes
from verifier.errors import VerifierError
from verifier.report import ReportFormat, ReportWriter, make_writer
from verifier.report.json_report import JsonReportWriter

if TYPE_CHECKING:  # the gate's statistics are imported when a gate decides (ADR 0045)
    from verifier.compare.gate import GateDecision

__all__ = ["gate_inputs", "gated_writer", "write_gate"]


def gate_inputs(gate_path: Path | None, inputs: RunInputs) -> tuple[Gate | None, str]:
    """The gate, if any, and the cases file's sha, which every run records.

    Exits 2 when the gate file is bad, or the contract, cases or run are not what it
    was locked for: nothing has run yet.
    """
    try:
        sha = cases_sha256(inputs.cases_path)
        if gate_path is None:
            return None, sha
        gate = read_gate(gate_path)
        refuse_changed("contract", inputs.loaded.sha256, gate.contract_sha256)
        refuse_changed_files(schema_file_hashes(inputs.loaded), gate.schema_files)
        refuse_changed("cases file", sha, gate.cases_sha256)
    except VerifierError as exc:
        fail(str(exc))
    if inputs.sut_plan.variants:
        fail("--gate decides on one run; compare the variants' runs with verifier compare --gate")
    if inputs.claims is not None and gate.primary_claim not in inputs.claims:
        fail(f"--claims leaves out the gate's primary claim {gate.primary_claim}")
    if gate.threshold is None:
        fail(
            f"{gate_path}: the gate has no threshold to hold a single run against (lock it "
            "with --threshold), or compare two runs with verifier compare --gate"
        )
    return gate, sha


def gated_writer(fmt: ReportFormat, out: IO[str], gate: Gate | None) -> ReportWriter:
    """The run's report writer; a JSON report under a gate is held for its decision."""
    if fmt == "json" and gate is not None:
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
