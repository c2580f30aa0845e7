"""The embedded gap store: one SQLite file in WAL mode (``.verifier/gaps.db`` by default).

Every append is one ``BEGIN IMMEDIATE`` transaction that reads the chain's last row
*inside* the transaction, so several processes appending to one file serialise on
SQLite's write lock and still build a single valid chain. Inside ``snapshot()`` every
read is made in one read transaction, so it sees one snapshot of the file.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

from verifier.gaps._run_lock import RunWriterLock
from verifier.gaps.chain import GENESIS, SealedRow, seal
from verifier.gaps.record_seals import purge_payload
from verifier.gaps.records import DuplicateRowId, StoredRow, StoreError
from verifier.gaps.row_fields import STORE_COLUMN_LIST, STORE_COLUMNS
from verifier.gaps.seals import append_seal, runs_payload
from verifier.gaps.sql import SQLITE, SqlStore, check_running
from verifier.gaps.sqlite.file import (
    content_key,
    open_store_file,
    read_snapshot,
    sqlite_errors,
    transaction,
)
from verifier.gaps.sqlite.wal_checkpoint import WalCheckpointer

_FETCH = 2000
_CACHE_KIB = 16 * 1024
_AUTOCHECKPOINT_PAGES = 1000  # SQLite's default, restored if the checkpoint thread fails
_DUPLICATES_SHOWN = 1000
_ROW_PLACEHOLDERS = "(" + ", ".join("?" * len(STORE_COLUMNS)) + ")"
_INSERT_ROW = f"INSERT INTO rows ({STORE_COLUMN_LIST}) VALUES {_ROW_PLACEHOLDERS}"
# Rows per multi-row INSERT: one statement step writes them all, which costs about a
# third less per row than executemany's step per row. 500 rows bind 6,000 parameters,
# well inside SQLite's default limit of 32,766 (older builds allow 999; see
# _rows_per_insert).
_ROWS_PER_INSERT = 500
_CONTENT_LOOKUPS = 500  # keys per query for contents already stored (well inside 999)


class SqliteStore(SqlStore):
    """A gap store in one SQLite file, created (with its folders) when missing.

    Safe for several processes on one file. Within a process, calls may come from
    any thread; writes are serialised by a lock. Rows can only be appended.

    Raises:
        StoreError: The file is not a SQLite database, belongs to another program,
            was written by a newer verifier, or cannot be opened.
    """

    dialect = SQLITE

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()
        self._conn = open_store_file(self._path)
        # Room for a whole chunk's pages: a smaller cache spills dirty pages to the WAL
        # mid-transaction, and a quarter more is written.
        self._conn.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
        self._checkpointer: WalCheckpointer | None = None
        self._writers = RunWriterLock(self._path)
        self._automatic_checkpoints = False
        self._snapshot_rows: int | None = None  # the snapshot's last seq, inside one
        self._rows_per_insert = _rows_per_insert(self._conn)
        self._insert_many = f"INSERT INTO rows ({STORE_COLUMN_LIST}) VALUES " + ", ".join(
            [_ROW_PLACEHOLDERS] * self._rows_per_insert
        )

    @property
    def location(self) -> str:
        """The file's path, for messages."""
        return str(self._path)

    def append(
        self, drafts: Iterable[Mapping[str, Any]], contents: Mapping[str, bytes] | None = None
    ) -> int:
        """Seals drafts onto the end of the chain and writes them in one transaction.

        Args:
            drafts: Rows without ``seq``, ``prev_hash`` and ``row_hash`` (see
                ``verifier.gaps.row_fields.DRAFT_FIELDS``), of runs that are running.
            contents: Case contents the drafts refer to, by SHA-256 (see
                ``verifier.gaps.content``); one already stored is kept as it is.

        Returns:
            The number of rows written.

        Raises:
            StoreError: A draft's run has not begun or has ended, or SQLite failed.
            ChainError: A draft has missing or extra keys; nothing is written.
        """
        batch = drafts if isinstance(drafts, list) else list(drafts)
        if not batch and not contents:
            return 0
        run_ids = {draft.get("run_id") for draft in batch}
        with self._write() as conn:
            status = {}
            for run_id in run_ids:
                found = conn.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,))
                status[run_id] = (found.fetchone() or (None,))[0]
            check_running(run_ids, status)
            # Read inside the write transaction: another process may have appended
            # since this one last looked.
            last = conn.execute("SELECT seq, row_hash FROM rows ORDER BY seq DESC LIMIT 1")
            sealed = seal(batch, *(last.fetchone() or (0, GENESIS)))
            if contents:
                _insert_contents(conn, contents)
            self._insert(conn, sealed)
            if sealed:
                append_seal(
                    conn.execute,
                    "?",
                    "append",
                    "",
                    runs_payload(run_ids, len(sealed)),
                    rows=(sealed[-1].seq, sealed[-1].row_hash),
                )
        self._checkpoint_soon()
        return len(sealed)

    def _checkpoint_soon(self) -> None:
        """Leaves the WAL checkpoint to a thread of its own (see ``_wal_checkpoint``)."""
        checkpointer = self._checkpointer
        if checkpointer is None:
            if self._automatic_checkpoints:
                return
            with self._lock, sqlite_errors(self._path):
                self._conn.execute("PRAGMA wal_autocheckpoint = 0")
            checkpointer = self._checkpointer = WalCheckpointer(self._path)
        elif checkpointer.failed:
            checkpointer.close()
            self._checkpointer = None
            self._automatic_checkpoints = True
            with self._lock, sqlite_errors(self._path):
                self._conn.execute(f"PRAGMA wal_autocheckpoint = {_AUTOCHECKPOINT_PAGES}")
            return
        checkpointer.request()

    def _insert(self, conn: sqlite3.Connection, sealed: list[SealedRow]) -> None:
        size = self._rows_per_insert
        whole = len(sealed) - len(sealed) % size
        if whole:
            statement = self._insert_many
            for start in range(0, whole, size):
                conn.execute(statement, tuple(chain.from_iterable(sealed[start : start + size])))
        if whole < len(sealed):
            conn.executemany(_INSERT_ROW, sealed[whole:])

    @contextmanager
    def _writing_run(self, run_id: str) -> Iterator[sqlite3.Connection]:
        with self._writers.taken(run_id), self._write() as conn:
            yield conn

    def _run_released(self, run_id: str) -> None:
        self._writers.release(run_id)

    def iter_rows(self, run_id: str | None = None) -> Iterator[StoredRow]:
        """Streams rows in seq order (all, or one run's), a batch at a time.

        The read sees one snapshot of the file (``snapshot()``'s, inside one): rows
        another process appends meanwhile are not part of it.
        """
        where, params = ("", ()) if run_id is None else ("WHERE run_id = ?", (run_id,))
        with sqlite_errors(self._path):
            cursor = self._conn.execute(
                f"SELECT {STORE_COLUMN_LIST} FROM rows {where} ORDER BY seq", params
            )
            try:
                make = partial(tuple.__new__, SealedRow)  # SealedRow._make, minus a check
                while batch := cursor.fetchmany(_FETCH):
                    yield from map(make, batch)
            finally:
                cursor.close()

    def run_written(self, run_id: str) -> bool:
        """Whether a process (this one included) holds the run's writer lock now."""
        return self._writers.held(run_id)

    def content(self, sha256: str) -> str | None:
        """Returns the case content stored under this hash, or ``None``."""
        with sqlite_errors(self._path):
            key = content_key(sha256)
            found = (
                None
                if key is None
                else self._conn.execute(
                    "SELECT body FROM contents WHERE k = ? AND sha256 = ?", (key, sha256)
                ).fetchone()
            )
        return str(found[0]) if found else None

    def stored_contents(self, shas: Sequence[str]) -> set[str]:
        """Which of ``shas`` (at most 500) are stored contents; inside ``snapshot()``,
        in its snapshot."""
        keys = [key for sha in shas if (key := content_key(sha)) is not None]
        if not keys:
            return set()
        marks = ", ".join("?" * len(keys))
        found = self.select(f"SELECT sha256 FROM contents WHERE k IN ({marks})", tuple(keys))
        return {str(sha) for (sha,) in found} & set(shas)

    def _read(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock, sqlite_errors(self._path):
            return self._conn.execute(query, params).fetchall()

    def _stream(self, query: str) -> Iterator[tuple[Any, ...]]:
        with sqlite_errors(self._path):
            cursor = self._conn.execute(query)
            try:
                while batch := cursor.fetchmany(_FETCH):
                    yield from batch
            finally:
                # A stream left unfinished may be collected after the store closed.
                with suppress(sqlite3.ProgrammingError):
                    cursor.close()

    def delete_contents(self, shas: Iterable[str], *, runs: Sequence[str] = ()) -> int:
        """Deletes stored contents, overwriting their bytes in the file, and seals the
        purge (which contents, of which ``runs``, when) in the same transaction.

        Returns:
            How many contents were deleted.
        """
        keys = [(key, sha) for sha in shas if (key := content_key(sha)) is not None]
        if not keys:
            return 0
        with self._lock, sqlite_errors(self._path):
            # A purged content must leave the file, not linger in a free page or in
            # the write-ahead log until SQLite happens to reuse it.
            self._conn.execute("PRAGMA secure_delete = ON")
            try:
                with transaction(self._conn):
                    before = self._conn.total_changes
                    self._conn.executemany("DELETE FROM contents WHERE k = ? AND sha256 = ?", keys)
                    deleted = self._conn.total_changes - before
                    purged = purge_payload(runs, (sha for _, sha in keys))
                    append_seal(self._conn.execute, "?", "purge", "", purged)
            finally:
                self._conn.execute("PRAGMA secure_delete = OFF")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return deleted

    def duplicate_row_ids(self, run_id: str | None = None) -> list[DuplicateRowId]:
        """Returns row ids held by more than one row (at most 1000 of them).

        Args:
            run_id: Only ids of which at least one copy belongs to this run.
        """
        query = (
            "SELECT row_id, group_concat(seq) FROM rows WHERE seq <= ?2 GROUP BY row_id"
            " HAVING COUNT(*) > 1 AND (?1 IS NULL OR SUM(run_id = ?1) > 0)"
            f" ORDER BY MIN(seq) LIMIT {_DUPLICATES_SHOWN}"
        )
        # Rows are only ever appended, so inside a snapshot the rows up to its last seq
        # are the snapshot's rows, whatever was appended since.
        last = self._snapshot_rows if self._snapshot_rows is not None else 2**63 - 1
        with sqlite_errors(self._path):
            self._conn.total_changes  # noqa: B018 -- fails on a closed store, as every call does
            # A connection of its own: the query sorts every row id, and meanwhile
            # this store's connection stays free (the audit streams rows through it).
            reader = sqlite3.connect(self._path, timeout=30.0, isolation_level=None)
            try:
                found = reader.execute(query, (run_id, last)).fetchall()
            finally:
                reader.close()
        return [
            DuplicateRowId(row_id, tuple(sorted(int(s) for s in seqs.split(","))))
            for row_id, seqs in found
        ]

    def snapshot(self) -> AbstractContextManager[None]:
        """Every read of this store inside the block sees the file as it was when the
        block began (one read transaction); writing through it inside fails. Re-entrant.

        Raises:
            StoreError: The file cannot be read.
        """
        return nullcontext() if self._snapshot_rows is not None else self._snapshotting()

    @contextmanager
    def _snapshotting(self) -> Iterator[None]:
        with sqlite_errors(self._path), read_snapshot(self._conn) as last:
            self._snapshot_rows = last
            try:
                yield
            finally:
                self._snapshot_rows = None

    def close(self) -> None:
        """Closes the file; further calls fail."""
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._writers.release_all()
        self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, sqlite_errors(self._path), transaction(self._conn):
            yield self._conn


def _insert_contents(conn: sqlite3.Connection, contents: Mapping[str, bytes]) -> None:
    """Inserts the contents not stored yet (inside the caller's write transaction)."""
    keyed = [(content_key(sha), sha, body) for sha, body in contents.items()]
    if any(key is None for key, _, _ in keyed):
        raise StoreError("cannot append rows: a content key is not a SHA-256 in hex")
    stored: set[str] = set()
    for start in range(0, len(keyed), _CONTENT_LOOKUPS):
        part = keyed[start : start + _CONTENT_LOOKUPS]
        marks = ", ".join("?" * len(part))
        found = conn.execute(
            f"SELECT sha256 FROM contents WHERE k IN ({marks})", [key for key, _, _ in part]
        )
        stored.update(sha for (sha,) in found)
    conn.executemany(
        "INSERT INTO contents (k, sha256, body) VALUES (?, ?, ?)",
        [(key, sha, body.decode("utf-8")) for key, sha, body in keyed if sha not in stored],
    )


def _rows_per_insert(conn: sqlite3.Connection) -> int:
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(_ROWS_PER_INSERT, limit // len(SealedRow._fields)))
