"""A gate decides only as it was locked: the gate file against its sealed lock, and a
stored run against the gate.

``verifier gate lock`` seals the gate into the store (``verifier.gaps.gate_locks``).
Before ``run --gate`` or ``compare --gate`` decides, the gate file must be exactly a
gate sealed in that store, and intact there: a file edited after the lock (a looser
threshold, another primary claim) differs from its seal, and the refusal names what
differs. A file with no lock in the store, a gate locked before gates were sealed
among them, is refused with the command that locks one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from verifier.compare.gate_file import Gate, GateRefused, gate_document, refuse_changed
from verifier.compare.gate_file import refuse_changed_files as refuse_files
from verifier.contract.schema_files import RUN_OPTION as SCHEMA_FILES_OPTION
from verifier.gaps.gate_locks import SealedGate, document_sha256, sealed_gates
from verifier.gaps.store import GapStore, RunRecord

__all__ = [
    "CASE_IDENTITY_OPTION",
    "check_sealed",
    "lock_command",
    "refuse_other_run",
]

CASE_IDENTITY_OPTION = "case_identity_sha256"
"""Key of a run's options where it records its cases' identity."""


def lock_command(gate: Gate, store: str, contract: str = "CONTRACT") -> str:
    """The command that locks a gate like ``gate`` in ``store``: what a refusal tells."""
    return f"verifier gate lock {contract} --primary {gate.primary_claim} --store {store}"


def check_sealed(
    gate: Gate, gate_path: Path, store: GapStore, *, contract: str = "CONTRACT"
) -> SealedGate:
    """The seal of ``gate`` in ``store``.

    Raises:
        GateRefused: The gate predates sealed locks, has no lock in the store, differs
            from the lock it was written with (naming each key that differs), or its
            lock was edited in the store.
    """
    relock = lock_command(gate, store.location, contract)
    if gate.case_identity_sha256 is None:
        raise GateRefused(
            f"{gate_path} was locked before gates were sealed in a store and pinned case "
            f"identities: remove it and lock it again ({relock})"
        )
    document = gate_document(gate)
    sha = document_sha256(document)
    locks = sealed_gates(store)
    mine = [lock for lock in locks if lock.gate_sha256 == sha]
    same = mine or [lock for lock in locks if _same_lock(lock, document)]
    if not same:
        raise GateRefused(
            f"{gate_path} has no sealed lock in {store.location}: lock the gate there ({relock})"
        )
    lock = same[-1]
    if not lock.intact:
        raise GateRefused(
            f"the lock of {gate_path} in {store.location} (seal {lock.n}) was edited: it no "
            "longer matches its seal (verifier audit reports it)"
        )
    if lock.gate_sha256 != sha:
        assert lock.document is not None  # an intact lock holds its gate
        differs = "; ".join(_differences(document, lock.document))
        raise GateRefused(
            f"{gate_path} differs from its sealed lock (seal {lock.n} in {store.location}): "
            f"{differs}; a locked gate is not edited: lock a new one ({relock})"
        )
    return lock


def _same_lock(lock: SealedGate, document: dict[str, Any]) -> bool:
    """Whether ``lock`` is the one a gate file was written with: locked at the same
    moment for the same contract id (the keys least likely to be edited)."""
    found = lock.document or {}
    return bool(found) and all(
        found.get(key) == document.get(key) for key in ("created_at", "contract_id")
    )


def _differences(document: dict[str, Any], sealed: dict[str, Any]) -> list[str]:
    """``KEY is X in the file, Y sealed`` for each key whose value differs."""
    keys = [*sealed, *(key for key in document if key not in sealed)]
    return [
        f"{key} is {_shown(document, key)} in the file, {_shown(sealed, key)} sealed"
        for key in keys
        if document.get(key) != sealed.get(key)
    ]


def _shown(document: dict[str, Any], key: str) -> str:
    return orjson.dumps(document[key]).decode() if key in document else "absent"


def refuse_other_run(gate: Gate, record: RunRecord) -> None:
    """Refuses a stored run of another contract, other cases or other schema files than
    the gate was locked for. Its outputs may differ: they are what is compared.

    Raises:
        GateRefused: The first difference, naming the run.
    """
    run_id = record.run_id
    refuse_changed(f"contract of run {run_id}", record.contract_sha256, gate.contract_sha256)
    identity = record.options.get(CASE_IDENTITY_OPTION)
    if not isinstance(identity, str):
        raise GateRefused(
            f"run {run_id} records no case identity (it was run before gates pinned the "
            "cases' identities), so its cases cannot be checked against the gate"
        )
    refuse_changed(f"cases of run {run_id}", identity, str(gate.case_identity_sha256))
    if gate.schema_files is not None:
        read = record.options.get(SCHEMA_FILES_OPTION)
        if not isinstance(read, dict):
            raise GateRefused(
                f"run {run_id} records no schema file hashes (it was run before runs kept "
                "them), so its schema files cannot be checked against the gate"
            )
        refuse_files(read, gate.schema_files, f" of run {run_id}")
