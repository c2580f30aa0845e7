"""The team gap store: tables in a PostgreSQL database (``postgresql://...``).

Same tables and behaviour as the SQLite store. Every write is one transaction that
first takes a transaction-level advisory lock on the store's chain, then reads the
chain's last row, seals and inserts (COPY): several processes appending to one
database serialise on that lock and build a single valid chain without losing a row.
Appends commit without waiting for the disk; ending a run does, which makes the run's
rows durable with it (ADR 0012).
Reads stream through a server-side cursor on a connection of their own, so memory does
not grow with the store and a long read never holds up the store's other calls; inside
``snapshot()`` every read, short or streamed, sees one snapshot of the store.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import orjson

from verifier.gaps.chain import GENESIS, SealedRow, seal
from verifier.gaps.postgres.conn import PostgresTarget, lock_key
from verifier.gaps.postgres.run_locks import RunLocks
from verifier.gaps.postgres.schema import prepare_store
from verifier.gaps.postgres.shards import (
    SHARD_COLUMNS,
    begin_shard,
    check_writer,
    end_shard,
    read_shards,
    sharded_options,
)
from verifier.gaps.postgres.snapshot import PostgresSnapshot
from verifier.gaps.record_seals import purge_payload
from verifier.gaps.records import (
    DuplicateRowId,
    StoredRow,
    StoreError,
)
from verifier.gaps.row_fields import POSTGRES_BINARY_TYPES, STORE_COLUMN_LIST
from verifier.gaps.seals import (
    append_payload,
    append_seal,
)
from verifier.gaps.shards import Shard, ShardRecord
from verifier.gaps.sql import POSTGRES, Execute, SqlStore, check_running

if TYPE_CHECKING:
    import psycopg

_FETCH = 2000
_SEAL_SLICE = 250
_DUPLICATES_SHOWN = 1000
_COPY_ROWS = f"COPY rows ({STORE_COLUMN_LIST}) FROM STDIN (FORMAT BINARY)"
_COPY_TYPES = list(POSTGRES_BINARY_TYPES)
_LOCK_CHAIN = "SELECT pg_advisory_xact_lock(%s)"
# Rows (run_id, status, NULL, NULL) per run asked about, then (NULL, NULL, seq,
# row_hash) of the chain's last row and (NULL, 'seal', n, seal_hash) of the last seal,
# when there are.
_RUNS_AND_LAST_ROW = (
    "SELECT run_id, status, NULL::bigint, NULL::text FROM runs WHERE run_id = ANY(%s)"
    " UNION ALL (SELECT NULL, NULL, seq, row_hash FROM rows ORDER BY seq DESC LIMIT 1)"
    " UNION ALL (SELECT NULL, 'seal', n, seal_hash FROM seals ORDER BY n DESC LIMIT 1)"
)
# ... then (NULL, 'content', NULL, sha256) of each content asked about that is stored.
_AND_CONTENTS = (
    " UNION ALL SELECT NULL, 'content', NULL, sha256 FROM contents WHERE sha256 = ANY(%s)"
)
_COPY_CONTENTS = "COPY contents (sha256, body) FROM STDIN (FORMAT BINARY)"
# A body goes as the UTF-8 bytes it is: binary COPY sends a text value as its bytes, as
# it sends a bytea's, and the server reads them as the column's text (checking them
# against the connection's encoding, UTF-8), so nothing is decoded to be encoded again.
_CONTENT_TYPES = ["text", "bytea"]
# For this transaction only; in the same statement as the lock, to spare a round trip.
_COMMIT_ASYNCHRONOUSLY = ", set_config('synchronous_commit', 'off', true)"


class PostgresStore(SqlStore):
    """A gap store in a PostgreSQL database, its schema created or migrated on opening.

    The store lives in the connection's current schema (``public`` unless the URL
    sets ``options=-csearch_path=...``). Safe for several processes on one database;
    within a process, calls may come from any thread. Rows can only be appended.

    Args:
        url: ``postgresql://user:password@host:port/dbname`` (libpq's URL form).

    Raises:
        StoreError: psycopg is missing, the URL is invalid, the server cannot be
            reached, or the schema is another program's or a newer verifier's. The
            message is one line and never holds the password.
    """

    dialect = POSTGRES

    # How long beginning a run waits for its lock to be let go before refusing: the
    # server drops a killed writer's lock once it notices the client is gone.
    WRITER_GONE_WAIT: ClassVar[float] = 5.0

    def __init__(self, url: str) -> None:
        self._target = PostgresTarget.parse(url, StoreError)
        self._lock = threading.Lock()
        self._closed = False
        self._conn = self._target.connect(autocommit=True, error=self._error)
        try:
            with self._target.errors(self._error):
                schema = prepare_store(self._conn, self.location)
            self._chain_lock = lock_key(schema, "chain")
            self._locks = RunLocks(schema, partial(self._read, session=True))
            self._shard: Shard | None = None
            self._snapshot: PostgresSnapshot | None = None
        except BaseException:
            self._conn.close()
            raise

    @property
    def location(self) -> str:
        """``postgresql://user@host:port/dbname``: the URL without its password."""
        return self._target.location

    def _recorded_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return sharded_options(options, self._shard)

    @contextmanager
    def _writing_run(self, run_id: str) -> Iterator[psycopg.Cursor[Any]]:
        with self._holding_run(run_id), self._write() as cur:
            yield cur

    def _resuming(self, run_id: str, options_json: str) -> None:
        check_writer(run_id, orjson.loads(options_json), self._shard)

    def _begun(self, execute: Execute, run_id: str, started_at: str) -> None:
        if self._shard is not None:
            begin_shard(execute, run_id, self._shard, started_at)

    def write_as_shard(self, shard: Shard | None) -> None:
        """Makes the runs this store writes from now on be written as ``shard`` of a
        sharded run (``None``: whole runs again).

        As a shard, ``begin_run`` records the shard under the run (creating the run
        with ``shards`` in its options if it is new) and refuses a run of another
        shard count or a shard that has already finished; the shard holds the run's
        lock shared and its own exclusively, so shards write side by side and a
        whole-run writer is refused meanwhile. ``finish_run`` records the shard's end
        and summary, not the run's: the run ends once every shard has (ADR 0043).
        """
        self._shard = shard

    def shards(self, run_id: str) -> list[ShardRecord]:
        """The shard records of a run, by shard (none for an unsharded run)."""
        found = self._read(
            f"SELECT {SHARD_COLUMNS} FROM run_shards WHERE run_id = %s ORDER BY shard", (run_id,)
        )
        return read_shards(found, run_id)

    @contextmanager
    def holding_run(self, run_id: str) -> Iterator[None]:
        """The run's writer lock, held exclusively for what follows (finishing a
        sharded run: no shard may write it meanwhile).

        Raises:
            StoreError: A shard or another writer is writing the run.
        """
        shard, self._shard = self._shard, None
        try:
            self._hold_run(run_id)
            try:
                yield
            finally:
                self._let_run_go(run_id)
        finally:
            self._shard = shard

    @contextmanager
    def _holding_run(self, run_id: str) -> Iterator[None]:
        """The run's session lock for what follows, let go again if that fails."""
        self._hold_run(run_id)
        try:
            yield
        except BaseException:
            self._let_run_go(run_id)
            raise

    def _hold_run(self, run_id: str) -> None:
        self._locks.hold(run_id, self._shard, wait=self.WRITER_GONE_WAIT)

    def _let_run_go(self, run_id: str) -> None:
        if not self._closed:
            self._locks.let_go(run_id, self._shard)

    def append(
        self, drafts: Iterable[Mapping[str, Any]], contents: Mapping[str, bytes] | None = None
    ) -> int:
        """Seals drafts (``verifier.gaps.row_fields.DRAFT_FIELDS``) of running runs onto the
        end of the chain and writes them in one transaction; returns the count.

        ``contents`` are the case contents the drafts refer to, by SHA-256; one
        already stored is kept as it is.

        Raises:
            StoreError: A draft's run has not begun or has ended, or PostgreSQL failed.
            ChainError: A draft has missing or extra keys; nothing is written.
        """
        batch = drafts if isinstance(drafts, list) else list(drafts)
        if not batch and not contents:
            return 0
        run_ids = list({str(draft.get("run_id")) for draft in batch})
        shas = list(contents) if contents else []
        query, params = (
            (_RUNS_AND_LAST_ROW + _AND_CONTENTS, (run_ids, shas))
            if shas
            else (_RUNS_AND_LAST_ROW, (run_ids,))
        )
        with self._write(durable=False) as cur:
            # Read under the chain lock, in one round trip: the runs' states, the
            # chain's last row (another process may have appended since this one last
            # looked, and none can until this transaction commits) and which contents
            # are stored (every writer of contents holds the lock too).
            found = cur.execute(query, params).fetchall()
            check_running(
                run_ids, {run_id: status for run_id, status, _, _ in found if run_id is not None}
            )
            last_seq, last_hash = next(
                ((seq, h) for run_id, kind, seq, h in found if run_id is None and kind is None),
                (0, GENESIS),
            )
            last_seal = next(
                ((n, h) for run_id, kind, n, h in found if run_id is None and kind == "seal"), None
            )
            if contents:
                stored = {h for run_id, kind, _, h in found if kind == "content" and not run_id}
                _copy_contents(cur, contents, stored)
            # Sealing a slice at a time lets the server store one slice while the next
            # is hashed. A draft that cannot be sealed aborts the COPY: nothing is kept.
            try:
                with cur.copy(_COPY_ROWS) as copy:
                    copy.set_types(_COPY_TYPES)
                    write = copy.write_row
                    for start in range(0, len(batch), _SEAL_SLICE):
                        sealed = seal(batch[start : start + _SEAL_SLICE], last_seq, last_hash)
                        for row in sealed:
                            write(row)
                        last_seq, last_hash = sealed[-1].seq, sealed[-1].row_hash
            except TypeError:  # binary COPY takes no int for a text column, say
                raise StoreError("cannot append rows: a draft value has the wrong type") from None
            if batch:
                payload = append_payload(batch, len(batch))
                append_seal(
                    cur.execute,
                    "%s",
                    "append",
                    "",
                    payload,
                    rows=(last_seq, last_hash),
                    last=last_seal,
                )
        return len(batch)

    def _end(self, execute: Execute, run_id: str, end: dict[str, Any]) -> None:
        if self._shard is not None and run_id in self._locks.writing:
            end_shard(execute, run_id, self._shard, **end)
        else:
            super()._end(execute, run_id, end)

    def _run_released(self, run_id: str) -> None:
        self._let_run_go(run_id)

    def iter_rows(self, run_id: str | None = None) -> Iterator[StoredRow]:
        """Streams rows in seq order (all, or one run's) through a server-side cursor.

        The read sees one snapshot (``snapshot()``'s, inside one): rows appended
        meanwhile are not part of it.
        """
        self._check_open()
        where, params = ("", ()) if run_id is None else ("WHERE run_id = %s", (run_id,))
        with (
            self._target.errors(self._error),
            self._reader() as conn,
            conn.cursor(name="gap_rows") as cursor,
            # The next batch is fetched while the caller works through this one: the
            # server reads and sends it meanwhile (the wait releases the GIL).
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="verifier-fetch") as fetcher,
        ):
            cursor.execute(f"SELECT {STORE_COLUMN_LIST} FROM rows {where} ORDER BY seq", params)
            make = partial(tuple.__new__, SealedRow)  # SealedRow._make, minus a check
            coming = fetcher.submit(cursor.fetchmany, _FETCH)
            while batch := coming.result():
                coming = fetcher.submit(cursor.fetchmany, _FETCH)
                yield from map(make, batch)

    def run_written(self, run_id: str) -> bool:
        """Whether a session (this store's included) holds the run's writer lock now."""
        return self._locks.written(run_id)

    def content(self, sha256: str) -> str | None:
        """Returns the case content stored under this hash, or ``None``."""
        found = self._read("SELECT body FROM contents WHERE sha256 = %s", (sha256,))
        return str(found[0][0]) if found else None

    def stored_contents(self, shas: Sequence[str]) -> set[str]:
        """Which of ``shas`` are stored contents; inside ``snapshot()``, in its snapshot."""
        found = self.select("SELECT sha256 FROM contents WHERE sha256 = ANY(%s)", (list(shas),))
        return {str(sha) for (sha,) in found}

    def _stream(self, query: str) -> Iterator[tuple[Any, ...]]:
        """A query's rows through a server-side cursor on a connection of its own."""
        self._check_open()
        with (
            self._target.errors(self._error),
            self._reader() as conn,
            conn.cursor(name="gap_stream") as cursor,
        ):
            cursor.execute(query)
            while batch := cursor.fetchmany(_FETCH):
                yield from batch

    def delete_contents(self, shas: Iterable[str], *, runs: Sequence[str] = ()) -> int:
        """Deletes stored contents and seals the purge (which contents, of which
        ``runs``, when) in the same transaction; returns how many were deleted."""
        keys = list(shas)
        if not keys:
            return 0
        with self._write() as cur:
            cur.execute("DELETE FROM contents WHERE sha256 = ANY(%s)", (keys,))
            deleted = cur.rowcount
            append_seal(cur.execute, "%s", "purge", "", purge_payload(runs, keys))
            return deleted

    def duplicate_row_ids(self, run_id: str | None = None) -> list[DuplicateRowId]:
        """Returns row ids held by more than one row (at most 1000 of them).

        Args:
            run_id: Only ids of which at least one copy belongs to this run.
        """
        self._check_open()
        # A connection of its own (in the snapshot, inside one): the query sorts every
        # row id, and meanwhile the audit streams rows and reads run records.
        with self._target.errors(self._error), self._reader() as conn:
            found = conn.execute(
                "SELECT row_id, array_agg(seq ORDER BY seq) FROM rows GROUP BY row_id"
                " HAVING COUNT(*) > 1 AND (%(run)s::text IS NULL OR bool_or(run_id = %(run)s))"
                f" ORDER BY MIN(seq) LIMIT {_DUPLICATES_SHOWN}",
                {"run": run_id},
            ).fetchall()
        return [DuplicateRowId(row_id, tuple(seqs)) for row_id, seqs in found]

    def snapshot(self) -> AbstractContextManager[None]:
        """Every read of this store inside the block sees the store as it was when the
        block began (one exported snapshot; see ``_postgres_snapshot``). Re-entrant.

        Raises:
            StoreError: The server refuses the snapshot.
        """
        self._check_open()
        return nullcontext() if self._snapshot is not None else self._snapshotting()

    @contextmanager
    def _snapshotting(self) -> Iterator[None]:
        self._snapshot = PostgresSnapshot(self._target, self._error)
        try:
            yield
        finally:
            snapshot, self._snapshot = self._snapshot, None
            snapshot.close()

    @contextmanager
    def _reader(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own for a long read, in the open snapshot if any."""
        with self._target.connect(autocommit=False, error=self._error) as conn:
            if self._snapshot is not None:
                self._snapshot.join(conn)
            yield conn

    def close(self) -> None:
        """Closes the connection; further calls fail."""
        self._closed = True
        self._conn.close()

    def _read(self, query: str, params: Any, *, session: bool = False) -> list[tuple[Any, ...]]:
        """A short read, in the open snapshot if any (``session``: never, for the
        session's own state such as its advisory locks)."""
        self._check_open()
        snapshot = None if session else self._snapshot
        with self._lock, self._target.errors(self._error):
            conn = self._conn if snapshot is None else snapshot.conn
            return conn.execute(query, params).fetchall()

    @contextmanager
    def _write(self, *, durable: bool = True) -> Iterator[psycopg.Cursor[Any]]:
        """One transaction holding the chain lock: writers of this store take turns.

        Args:
            durable: Wait at the commit until the server has flushed it to disk. Appends
                do not: a commit is flushed by the next durable one (``finish_run``
                makes a run's rows durable) or by the server within a second; a server
                or machine crash meanwhile loses only the newest rows, from the end of
                the chain, of a run that is not finished.
        """
        self._check_open()
        with (
            self._lock,
            self._target.errors(self._error),
            self._conn.transaction(),
            self._conn.cursor() as cur,
        ):
            cur.execute(
                _LOCK_CHAIN if durable else _LOCK_CHAIN + _COMMIT_ASYNCHRONOUSLY,
                (self._chain_lock,),
            )
            yield cur

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"gap store {self.location} is closed")

    def _error(self, message: str) -> StoreError:
        return StoreError(f"gap store {message}")


def _copy_contents(
    cur: psycopg.Cursor[Any], contents: Mapping[str, bytes], stored: set[str]
) -> None:
    """Writes the contents not ``stored`` yet (inside the caller's transaction), in one
    COPY: a content is written once, whatever number of rows and batches name it."""
    missing = [(sha, body) for sha, body in contents.items() if sha not in stored]
    if not missing:
        return
    with cur.copy(_COPY_CONTENTS) as copy:
        copy.set_types(_CONTENT_TYPES)
        for item in missing:
            copy.write_row(item)
