"""A pre-registered gate over one run (``verifier run --gate FILE``): the gate file and
its sealed lock checked before the run, its decision made after it.

The gate's statistics (``verifier.compare.gate``) are imported only when a gate
decides (ADR 0045).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from verifier.contract.load import LoadedContract
from verifier.contract.schema_files import schema_file_hashes
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, open_store, redacted_target
from verifier.run.options import RunOptionError

if TYPE_CHECKING:
    from verifier.compare.gate import GateDecision

__all__ = ["cases_record", "check_gate", "decide_gate"]


def cases_record(loaded: LoadedContract, cases: Path) -> dict[str, Any]:
    """What every run of a cases file records of it: the file's sha256 and the cases'
    identity (``verifier.compare.case_identity``), which a gate is locked to.

    Raises:
        VerifierError: The file cannot be read.
    """
    try:
        identity = case_identity(cases, loaded.contract).sha256
        return {"cases_sha256": cases_sha256(cases), CASE_IDENTITY_OPTION: identity}
    except OSError as exc:
        raise VerifierError(f"{cases}: cannot read the cases file: {exc.strerror or exc}") from None


def check_gate(
    gate_path: Path,
    loaded: LoadedContract,
    recorded: dict[str, Any],
    *,
    target: str,
    claims: list[str] | None,
    variants: bool,
) -> Gate:
    """The gate of ``gate_path``, after checking it is the gate sealed in the store
    ``target`` names, locked for this contract and these cases (``recorded``, made by
    :func:`cases_record`), and able to decide on this run.

    Raises:
        GateRefused: The file is bad, not sealed there, or the contract or cases changed.
        RunOptionError: The run is of two variants, leaves out the gate's primary
            claim, or the gate has no threshold to hold one run against.
    """
    gate = read_gate(gate_path)
    _check_sealed(gate, gate_path, loaded, target)
    refuse_changed("contract", loaded.sha256, gate.contract_sha256)
    refuse_changed_files(schema_file_hashes(loaded), gate.schema_files)
    identity = recorded[CASE_IDENTITY_OPTION]
    if identity != gate.case_identity_sha256:
        raise GateRefused(
            "cases changed since the gate was locked: an id, an input or another field "
            f"that is not an output differs (identity {identity}, gate has "
            f"{gate.case_identity_sha256})"
        )
    if variants:
        raise RunOptionError(
            "--gate decides on one run; compare the variants' runs with verifier compare --gate"
        )
    if claims is not None and gate.primary_claim not in claims:
        raise RunOptionError(f"--claims leaves out the gate's primary claim {gate.primary_claim}")
    if gate.threshold is None:
        raise RunOptionError(
            f"{gate_path}: the gate has no threshold to hold a single run against (lock it "
            "with --threshold), or compare two runs with verifier compare --gate"
        )
    return gate


def _check_sealed(gate: Gate, gate_path: Path, loaded: LoadedContract, target: str) -> None:
    """Refuses a gate file that is not a gate sealed in the run's store; a store that
    does not exist yet is not made by the refusal."""
    from verifier.gaps.gate_locks import store_exists

    if not store_exists(target):
        shown = redacted_target(target)
        raise GateRefused(
            f"{gate_path} has no sealed lock in {shown}: no store is there yet; lock the "
            f"gate there ({lock_command(gate, shown, str(loaded.path))})"
        )
    with open_store(target) as gap_store:
        check_sealed(gate, gate_path, gap_store, contract=str(loaded.path))


def decide_gate(gate: Gate, store: GapStore, run_id: str) -> GateDecision:
    """The gate's decision on the run ``run_id``, as stored."""
    from verifier.compare.gate import decide_run

    return decide_run(gate, store, run_id)
