"""``verifier run --gate``: the checks before the run, and the verdict after it.

Imported only when ``run`` runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from verifier.cli._options import fail
from verifier.cli._run_inputs import RunInputs
from verifier.compare.gate import GateDecision
from verifier.compare.gate_file import Gate, cases_sha256, read_gate, refuse_changed
from verifier.errors import VerifierError

__all__ = ["gate_inputs", "write_gate"]


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


def write_gate(decision: GateDecision, fmt: str, report: IO[str]) -> None:
    """Ends a Markdown report with the gate's verdict (``finish_run`` says it on stderr)."""
    if fmt == "markdown":
        report.write("\n" + decision.markdown())
