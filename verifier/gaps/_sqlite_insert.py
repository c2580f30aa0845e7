"""Sealing a batch into the SQLite store's chain and inserting it, the two overlapped.

Sealing (canonical JSON, SHA-256) is Python and holds the GIL; SQLite's part of an
INSERT (records, the B-trees of the table and its index, pages for the WAL) runs in C
with the GIL released. So a batch is sealed a slice at a time, and each slice is
inserted by a thread of its own while the main thread seals the next: on two cores a
batch costs about the larger of the two rather than their sum.

Everything still happens inside the caller's one transaction, in chain order: a slice
is inserted only once the one before it is, and the connection is used by one thread
at a time. A slice that fails (SQLite, or a draft that cannot be sealed) ends the
batch only after the slice in flight has finished, so the caller's rollback finds the
connection idle and nothing of the batch is kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from itertools import chain
from typing import Any

from verifier.gaps.chain import SealedRow, seal

ROW_COLUMNS = (
    "seq, row_id, run_id, case_id, claim_id, kind, status, score, recorded_at, body, "
    "prev_hash, row_hash"
)
_ROW_PLACEHOLDERS = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
# Rows per slice, and per multi-row INSERT: one statement step writes them all, which
# costs about a third less per row than executemany's step per row. Small enough that
# a batch of a few hundred rows makes several slices to overlap. 100 rows bind 1,200
# parameters, well inside SQLite's default limit of 32,766; builds with the old limit
# of 999 get fewer rows a statement (see _rows_per_insert).
_ROWS_PER_INSERT = 100


class RowWriter:
    """Seals and inserts batches of drafts on one connection.

    Args:
        conn: The store's connection; ``write`` must be called inside a write
            transaction on it, by one thread at a time.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._slice = _rows_per_insert(conn)
        self._statements: dict[int, str] = {}
        self._inserter: ThreadPoolExecutor | None = None

    def write(self, batch: list[Mapping[str, Any]], last_seq: int, last_hash: str) -> None:
        """Seals ``batch`` onto the chain after ``(last_seq, last_hash)`` and inserts it.

        Raises:
            ChainError: A draft cannot be sealed.
            sqlite3.Error: SQLite refused an insert.
        """
        size = self._slice
        if len(batch) <= size:
            self._insert(seal(batch, last_seq, last_hash))
            return
        inserter = self._inserter
        if inserter is None:
            inserter = self._inserter = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="verifier-sqlite-insert"
            )
        pending: Future[None] | None = None
        try:
            for start in range(0, len(batch), size):
                sealed = seal(batch[start : start + size], last_seq, last_hash)
                last_seq, last_hash = sealed[-1].seq, sealed[-1].row_hash
                if pending is not None:
                    pending.result()
                pending = inserter.submit(self._insert, sealed)
        finally:
            # Also when sealing failed: the transaction may only end once the
            # connection is idle.
            if pending is not None:
                wait([pending])
        if pending is not None:
            pending.result()

    def close(self) -> None:
        """Stops the inserting thread (the connection is the caller's to close)."""
        if self._inserter is not None:
            self._inserter.shutdown()
            self._inserter = None

    def _insert(self, sealed: list[SealedRow]) -> None:
        self._conn.execute(self._statement(len(sealed)), tuple(chain.from_iterable(sealed)))

    def _statement(self, rows: int) -> str:
        statement = self._statements.get(rows)
        if statement is None:
            values = ", ".join([_ROW_PLACEHOLDERS] * rows)
            statement = self._statements[rows] = f"INSERT INTO rows ({ROW_COLUMNS}) VALUES {values}"
        return statement


def _rows_per_insert(conn: sqlite3.Connection) -> int:
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(_ROWS_PER_INSERT, limit // len(SealedRow._fields)))
