"""The records a gap store keeps and hands back: runs, contracts, rows, and its errors.

Kept apart from ``verifier.gaps.store`` (the protocol and ``open_store``) so the two
backends can share them without importing the module that opens them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from verifier._internal.canonical import canonical_json
from verifier.errors import VerifierError
from verifier.gaps.chain import SealedRow
from verifier.gaps.run_refs import is_reserved
from verifier.gaps.seals import append_seal, end_payload

RunStatus = Literal["running", "finished", "interrupted"]
RUN_STATUSES: frozenset[str] = frozenset({"running", "finished", "interrupted"})

CHAIN_SUMMARY_KEY = "chain"
"""Key of ``RunRecord.summary`` where ``finish_run`` records the run's row count and
last row. Only a count recorded at the end can reveal rows deleted from the end of a
chain: the remaining chain is still perfectly valid."""

StoredRow: TypeAlias = SealedRow
"""A row read back from a store: the same columns that were sealed and written."""


class StoreError(VerifierError):
    """A store that cannot be opened, read or written; the message is one line."""


@dataclass(frozen=True, slots=True)
class RunChainRecord:
    """What a finished or interrupted run recorded about its own rows."""

    rows: int
    last_seq: int | None
    last_hash: str | None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run as the store knows it.

    Attributes:
        options: The run's options as ``begin_run`` received them.
        summary: The run's totals as ``finish_run`` received them, plus the
            ``chain`` record (row count and last row) the store added.
    """

    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    started_at: str
    finished_at: str | None
    status: str
    options: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def chain_record(self) -> RunChainRecord | None:
        """The row count and last row recorded when the run ended, if well-formed."""
        raw = self.summary.get(CHAIN_SUMMARY_KEY)
        if not isinstance(raw, Mapping):
            return None
        rows, last_seq, last_hash = raw.get("rows"), raw.get("last_seq"), raw.get("last_hash")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            return None
        if not (last_seq is None or (isinstance(last_seq, int) and not isinstance(last_seq, bool))):
            return None
        if not (last_hash is None or isinstance(last_hash, str)):
            return None
        return RunChainRecord(rows, last_seq, last_hash)


@dataclass(frozen=True, slots=True)
class StoredContract:
    """The exact contract source a run checked, so any row's check can be re-run."""

    sha256: str
    path: str
    source: str


@dataclass(frozen=True, slots=True)
class DuplicateRowId:
    """A ``row_id`` held by more than one row, with the seqs that hold it."""

    row_id: str
    seqs: tuple[int, ...]


def check_run_id(run_id: str) -> None:
    """Refuses a run id a reference would shadow (both stores' ``begin_run``): ``last``
    and ``last~N`` name the newest runs (``verifier.gaps.run_refs``).

    Raises:
        StoreError: ``run_id`` is ``last`` or starts with ``last~``.
    """
    if is_reserved(run_id):
        raise StoreError(
            f"run id {run_id[:40]!r} is reserved: last and last~N name the newest runs "
            "of a store, so no run may be called that"
        )


def record_run_end(
    execute: Callable[[str, tuple[Any, ...]], Any],
    placeholder: str,
    run_id: str,
    *,
    status: str,
    finished_at: str,
    summary: Mapping[str, Any],
) -> None:
    """Ends a run inside a store's write transaction (both stores' ``finish_run``).

    Records ``summary`` plus the ``chain`` key the store writes itself (the run's row
    count and last row, replacing any the caller passed), which lets the audit notice
    rows deleted from the end of the chain, and seals the end into the seal chain.

    Args:
        execute: The transaction's ``execute`` (a cursor's or a connection's).
        placeholder: The database's parameter marker (``?`` or ``%s``).

    Raises:
        ValueError: ``status`` is not ``finished`` or ``interrupted``.
        StoreError: The run has not begun.
    """
    if status not in ("finished", "interrupted"):
        raise ValueError(f"a run ends as finished or interrupted, not {status!r}")

    def query(sql: str, params: tuple[Any, ...]) -> Any:
        return execute(sql.replace("?", placeholder), params).fetchone()

    if query("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)) is None:
        raise StoreError(f"cannot finish run {run_id}: it has not begun")
    (rows,) = query("SELECT COUNT(*) FROM rows WHERE run_id = ?", (run_id,)) or (0,)
    last = query(
        "SELECT seq, row_hash FROM rows WHERE run_id = ? ORDER BY seq DESC LIMIT 1", (run_id,)
    )
    recorded = dict(summary)
    recorded[CHAIN_SUMMARY_KEY] = {
        "rows": rows,
        "last_seq": last[0] if last else None,
        "last_hash": last[1] if last else None,
    }
    execute(
        "UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE run_id = ?".replace(
            "?", placeholder
        ),
        (status, finished_at, canonical_json(recorded).decode("utf-8"), run_id),
    )
    append_seal(execute, placeholder, "end", run_id, end_payload(status, finished_at, recorded))
