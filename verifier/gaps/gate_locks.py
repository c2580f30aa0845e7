"""Gate locks: a pre-registered gate sealed into a store's seal chain.

``verifier gate lock`` writes the gate file a team commits and seals the same gate
into the store its runs go to: a seal of kind ``gate`` whose subject is the SHA-256
of the gate's canonical JSON and whose body holds the gate itself. The seal is the
record: it is hash-chained with every other seal (so ``verifier audit`` verifies it
as it verifies a run's record, and an edit to it changes the store's head), it
travels in an export with the rest of the chain, and no table beside it can
disagree with it.

This module knows gates only as JSON documents; what they mean is
``verifier.compare.gate_file``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.gaps.seals import SEAL_COLUMNS, StoredSeal, seal_intact
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.gaps.store import GapStore, StoreError, is_postgres_url, open_store
from verifier.gaps.target import sqlite_path

__all__ = [
    "GATE_SEAL_KIND",
    "SealedGate",
    "document_sha256",
    "seal_gate",
    "sealed_gates",
    "store_exists",
]

GATE_SEAL_KIND: Final = "gate"

_GATE_SEALS = f"SELECT {SEAL_COLUMNS} FROM seals WHERE kind = 'gate' ORDER BY n"
# The seal chain is the store's own: opened through ``SideTables`` only to append a
# seal in its transaction, so no table is created.
_NO_TABLE: Final = TableSpec("seals", sqlite=(), postgres=())


def document_sha256(document: Any) -> str:
    """SHA-256 of a gate document's canonical JSON: the subject of its seal."""
    return sha256_hex(canonical_json(document))


@dataclass(frozen=True, slots=True)
class SealedGate:
    """A gate lock as the seal chain holds it.

    Attributes:
        n: The seal's position in the chain.
        seal_hash: The seal's hash (the store's head right after the lock).
        gate_sha256: The subject: the SHA-256 of the gate the seal was written for.
        document: The gate the seal holds, or ``None`` when its body is unreadable.
        intact: Whether the seal's hash seals its body and the gate in it hashes to
            its subject: an edited lock is not intact.
    """

    n: int
    seal_hash: str
    gate_sha256: str
    document: dict[str, Any] | None
    intact: bool


def _sealed(seal: StoredSeal) -> SealedGate:
    try:
        body = orjson.loads(seal.body)
    except orjson.JSONDecodeError:
        body = None
    document = body.get("gate") if isinstance(body, dict) else None
    if not isinstance(document, dict):
        document = None
    intact = (
        seal_intact(seal)
        and document is not None
        and document_sha256(document) == seal.subject
        and seal.kind == GATE_SEAL_KIND
    )
    return SealedGate(seal.n, seal.seal_hash, seal.subject, document, intact)


def sealed_gates(store: GapStore) -> list[SealedGate]:
    """Every gate lock sealed in ``store``, oldest first.

    Raises:
        StoreError: The store cannot be read.
    """
    select = getattr(store, "select", None)
    if select is None:  # a store of another kind keeps no seals to query
        return [_sealed(s) for s in store.iter_seals() if s.kind == GATE_SEAL_KIND]
    return [_sealed(StoredSeal(*row)) for row in select(_GATE_SEALS, ())]


def store_exists(target: str) -> bool:
    """Whether ``target`` names a store that may hold a lock: a SQLite file that
    exists and is not empty, or a database server (asked when it is read)."""
    if is_postgres_url(target):
        return True
    path = sqlite_path(target)
    file = Path(path) if path is not None else None
    return file is not None and file.is_file() and file.stat().st_size > 0


def seal_gate(target: str, document: dict[str, Any]) -> StoredSeal:
    """Seals a gate into the store ``target`` names (created when it is new).

    Returns:
        The seal written: its hash is the store's head once the lock is written.

    Raises:
        StoreError: The store cannot be opened or written.
    """
    open_store(target).close()  # creates or migrates the store, its seal chain above all
    db = SideTables.open(target, _NO_TABLE, error=StoreError)
    sha = document_sha256(document)
    try:
        return db.append_sealed(kind=GATE_SEAL_KIND, subject=sha, payload={"gate": document})
    finally:
        db.close()
