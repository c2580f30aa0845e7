"""``verifier run --gate``: the checks before the run, and the verdict after it.

Imported only when ``run`` runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from verifier.cli._options import fail
from verifier.cli._run_inputs import RunInputs
from verifier.compare.case_identity import case_identity
from verifier.compare.gate_file import (
    Gate,
    GateRefused,
    cases_sha256,
    read_gate,
    refuse_changed,
    refuse_changed_files,
)
from verifier.compare.gate_lock import CASE_IDENTITY_OPTION, check_sealed, lock_command
from verifier.contract.schema_files import schema_file_hashes
from verifier.errors import VerifierError
from verifier.report import ReportFormat, ReportWriter, make_writer
from verifier.report.json_report import JsonReportWriter

if TYPE_CHECKING:  # the gate's statistics are imported when a gate decides (ADR 0045)
    from verifier.compare.gate import GateDecision

__all__ = ["gate_inputs", "gated_writer", "write_gate"]


def gate_inputs(
    gate_path: Path | None, inputs: RunInputs, store: str | None, *, resuming: bool = False
) -> tuple[Gate | None, dict[str, Any]]:
    """The gate, if any, and what every run records of its cases: the cases file's sha
    and the cases' identity (``verifier.compare.case_identity``). A resumed run without
    a gate keeps what it recorded when it started, so nothing is read here: its new
    work starts at once (ADR 0068).

    Exits 2 when the gate file is bad or is not the gate sealed in ``store``, or the
    contract, cases or run are not what it was locked for: nothing has run yet.
    """
    if resuming and gate_path is None:
        return None, {}
    try:
        identity = case_identity(inputs.cases_path, inputs.loaded.contract).sha256
        recorded = {"cases_sha256": cases_sha256(inputs.cases_path), CASE_IDENTITY_OPTION: identity}
        if gate_path is None:
            return None, recorded
        gate = read_gate(gate_path)
        _check_sealed(gate, gate_path, inputs, store)
        refuse_changed("contract", inputs.loaded.sha256, gate.contract_sha256)
        refuse_changed_files(schema_file_hashes(inputs.loaded), gate.schema_files)
        if identity != gate.case_identity_sha256:
            raise GateRefused(
                "cases changed since the gate was locked: an id, an input or another field "
                f"that is not an output differs (identity {identity}, gate has "
                f"{gate.case_identity_sha256})"
            )
    except OSError as exc:
        fail(f"{inputs.cases_path}: cannot read the cases file: {exc.strerror or exc}")
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
    return gate, recorded


def _check_sealed(gate: Gate, gate_path: Path, inputs: RunInputs, store: str | None) -> None:
    """Refuses a gate file that is not a gate sealed in the run's store; a store that
    does not exist yet is not made by the refusal."""
    from verifier.gaps.gate_locks import store_exists
    from verifier.gaps.store import open_store, redacted_target
    from verifier.gaps.target import store_target

    target = store_target(store)
    if not store_exists(target):
        shown = redacted_target(target)
        raise GateRefused(
            f"{gate_path} has no sealed lock in {shown}: no store is there yet; lock the "
            f"gate there ({lock_command(gate, shown, str(inputs.loaded.path))})"
        )
    with open_store(target) as gap_store:
        check_sealed(gate, gate_path, gap_store, contract=str(inputs.loaded.path))


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
