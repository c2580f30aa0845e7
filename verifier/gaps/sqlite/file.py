"""Opening a gap-store SQLite file: recognising it, creating its schema, its errors.

Kept apart from ``SqliteStore`` so the store reads as its API: this module knows the
file format (tables, triggers, ``application_id``, schema version) and how SQLite's
exceptions become one-line ``StoreError`` messages.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from verifier._internal.write_errors import full_disk, no_room, os_problem
from verifier.gaps.alert_table import ALERT_DELIVERIES_DDL_SQLITE
from verifier.gaps.records import StoreError
from verifier.gaps.row_fields import rows_table_columns

# PRAGMA application_id marks the file as ours ("vrfy"), so a foreign SQLite file is
# recognised before anything is written to it.
APPLICATION_ID = 0x76726679
SCHEMA_VERSION = 5
PAGE_SIZE = 16384

# Version 2: the content record. A content is stored under the SHA-256 of its bytes,
# so it can never change (updates are refused) but may be deleted: purging content
# for privacy leaves every row and the chain intact.
# Contents are looked up by ``k``, the first 64 bits of the hash as a signed integer
# (``content_key``), then by the whole hash: hashes are random, so every insert lands
# on a random page of the index, and each commit writes every page it touched. An
# index of 64-bit integers has a fifth as many pages as one of 64-character hex
# strings; on a 16 KiB-page file that made a first run of 300,000 cases about 30%
# faster. The table itself stays in insertion order.
_CONTENTS_DDL = (
    "CREATE TABLE IF NOT EXISTS contents ("
    " k INTEGER NOT NULL, sha256 TEXT NOT NULL, body TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS contents_k ON contents (k)",
    "CREATE TRIGGER IF NOT EXISTS contents_no_update BEFORE UPDATE ON contents"
    " BEGIN SELECT RAISE(ABORT, 'stored contents never change'); END",
)

# Version 3: the seal chain (``verifier.gaps.seals``), append-only like the rows. A
# store's first seal records the row chain's last row, so rows written before the
# upgrade are sealed with it.
_SEALS_DDL = (
    "CREATE TABLE IF NOT EXISTS seals (n INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
    " subject TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL,"
    " seal_hash TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS seals_subject ON seals (subject, n)",
    "CREATE TRIGGER IF NOT EXISTS seals_no_update BEFORE UPDATE ON seals"
    " BEGIN SELECT RAISE(ABORT, 'seals are append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS seals_no_delete BEFORE DELETE ON seals"
    " BEGIN SELECT RAISE(ABORT, 'seals are append-only'); END",
)

# Version 4: the indexes browsing reads through (``verifier.analyses.browse``): each page is
# a range read of one. An index of a rowid table ends with the rowid, which is ``seq``
# here: ``(run_id, claim_id)`` is already in seq order within a claim, so it serves
# ``WHERE run_id = ? AND claim_id = ? AND seq > ? ORDER BY seq LIMIT n`` without a sort.
# Each costs appends a little (one more B-tree insert per row).
_BROWSE_DDL = (
    "CREATE INDEX IF NOT EXISTS rows_run_claim ON rows (run_id, claim_id)",
    "CREATE INDEX IF NOT EXISTS rows_run_status ON rows (run_id, status)",
    "CREATE INDEX IF NOT EXISTS rows_run_case ON rows (run_id, case_id)",
    "CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at)",
    "CREATE INDEX IF NOT EXISTS runs_contract_started ON runs (contract_id, started_at)",
)

# Version 5: the alerts sent (``verifier.gaps.alert_deliveries``): each degradation
# alert ``audit --notify`` posted, to which destination (hashed) and how it went, so a
# repeated audit posts each alert once. Sealed rows beside the gap rows.
_ALERTS_DDL = ALERT_DELIVERIES_DDL_SQLITE

# Separate statements, not executescript(): that would commit the open transaction,
# and two processes creating one store at once must each do it under the write lock.
# The triggers refuse updates and deletes of rows, so nothing that goes through SQLite
# edits a row by accident; a deliberate edit (dropping them first) is for the audit.
_DDL = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS contracts ("
    " sha256 TEXT PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs ("
    " run_id TEXT PRIMARY KEY, contract_id TEXT NOT NULL, contract_version INTEGER NOT NULL,"
    " contract_sha256 TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT,"
    " status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),"
    " options TEXT NOT NULL, summary TEXT NOT NULL)",
    # The columns of ROW_FIELDS, unchanged since version 1: moving or adding one needs a
    # new schema version, as existing files keep theirs. The "( " keeps the text SQLite
    # records in sqlite_master byte for byte what it always was.
    f"CREATE TABLE IF NOT EXISTS rows ( {rows_table_columns('sqlite')})",
    "CREATE INDEX IF NOT EXISTS rows_run_id ON rows (run_id)",
    "CREATE TRIGGER IF NOT EXISTS rows_no_update BEFORE UPDATE ON rows"
    " BEGIN SELECT RAISE(ABORT, 'gap rows are append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS rows_no_delete BEFORE DELETE ON rows"
    " BEGIN SELECT RAISE(ABORT, 'gap rows are append-only'); END",
    *_CONTENTS_DDL,
    *_SEALS_DDL,
    *_BROWSE_DDL,
    *_ALERTS_DDL,
)


def open_store_file(path: Path) -> sqlite3.Connection:
    """Connects to a gap-store file, creating the file and its schema when new.

    Raises:
        StoreError: The path is a directory or unusable, the file is not SQLite, is
            another program's database, or was written by a newer verifier.
    """
    if path.is_dir():
        raise StoreError(f"gap store {path} is a directory, not a file")
    with sqlite_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        # Transactions are explicit (BEGIN IMMEDIATE), hence isolation_level=None; the
        # timeout is how long SQLite waits for another process's write lock.
        conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    try:
        _initialise(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def _initialise(conn: sqlite3.Connection, path: Path) -> None:
    with sqlite_errors(path):
        # Identify the file before writing anything: a foreign database must not be
        # switched to WAL or given our tables.
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        has_tables = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1"
        ).fetchone()
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and has_tables):
            raise StoreError(f"{path} is a SQLite database but not a verifier gap store")
        if app_id == 0:
            # Only a new file takes it (before its first write). Gap rows are most of a
            # kilobyte: bigger pages mean fewer WAL frames and B-tree pages per row, and
            # appends took about 7% less CPU; existing stores keep theirs.
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode survives a crashed process; only a power loss may drop the
        # last commits, and what remains is still a valid chain.
        conn.execute("PRAGMA synchronous=NORMAL")
        if app_id == 0:
            with transaction(conn):
                for statement in _DDL:
                    conn.execute(statement)
                conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        for at, statements in _MIGRATIONS:
            if version is not None and str(version[0]) == str(at):
                version = _migrate(conn, statements, at + 1)
    if version is None or not str(version[0]).isdigit():
        raise StoreError(f"gap store {path} has no schema version: it is damaged")
    if int(version[0]) > SCHEMA_VERSION:
        raise StoreError(
            f"gap store {path} has schema version {version[0]}, newer than this verifier "
            f"reads ({SCHEMA_VERSION}): upgrade verifier"
        )


def _migrate(conn: sqlite3.Connection, statements: tuple[str, ...], version: int) -> tuple[str]:
    """Brings a store to ``version`` (rows and runs written before keep what they had)."""
    with transaction(conn):
        for statement in statements:
            conn.execute(statement)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    return (str(version),)


# (version a store is at, what brings it to the next): 2 adds the content record, 3 the
# seal chain, 4 the browsing indexes (built once, over every row already stored), 5 the
# alerts sent.
_MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, _CONTENTS_DDL),
    (2, _SEALS_DDL),
    (3, _BROWSE_DDL),
    (4, _ALERTS_DDL),
)


def content_key(sha256: str) -> int | None:
    """The ``k`` a content is looked up by, or ``None`` for a string that is no hash."""
    if len(sha256) != 64:
        return None
    try:
        return int(sha256[:16], 16) - (1 << 63)
    except ValueError:
        return None


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction that takes SQLite's write lock at its start.

    ``BEGIN IMMEDIATE`` rather than a deferred ``BEGIN``: everything read inside
    (notably the chain's last row) cannot change before the commit.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[int]:
    """One read transaction: every read on ``conn`` inside sees the same snapshot.

    In WAL mode a deferred ``BEGIN`` takes its snapshot at the first read, made here,
    and holds it until the end: commits of other connections meanwhile are not seen.
    Writing on ``conn`` inside fails (its write lock would come too late).

    Yields:
        The seq of the snapshot's last row (0 when it holds none).
    """
    conn.execute("BEGIN")
    try:
        (last,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM rows").fetchone()
        yield int(last)
    finally:
        # Nothing was written: ending it only lets the snapshot go (a stream left
        # unfinished does not keep COMMIT from doing that).
        conn.execute("COMMIT")


@contextmanager
def sqlite_errors(path: Path) -> Iterator[None]:
    """Turns SQLite and file-system errors into a one-line ``StoreError``."""
    try:
        yield
    except sqlite3.Error as exc:
        # SQLite may quote a whole damaged value in its message: keep one short line.
        detail = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        if "file is not a database" in detail:
            raise StoreError(f"{path} is not a verifier gap store (not a SQLite file)") from None
        full = _no_room(path, exc)
        if full is not None:
            raise StoreError(f"gap store {path}: cannot write: {full} (SQLite: {detail})") from None
        raise StoreError(f"gap store {path}: {detail}") from None
    except OSError as exc:
        raise StoreError(f"gap store {path}: {os_problem(exc)}") from None


def _no_room(path: Path, exc: sqlite3.Error) -> str | None:
    """The full disk or file size limit behind SQLite's error, if that is what it is."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code == sqlite3.SQLITE_FULL:
        return no_room(path)
    # A write refused by the file size limit (EFBIG) reaches SQLite as an I/O error.
    return full_disk(path) if code == sqlite3.SQLITE_IOERR else None
