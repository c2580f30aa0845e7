"""The PostgreSQL gap store's schema, created and migrated by verifier itself.

``schema_version`` records each applied migration. ``MIGRATIONS[n - 1]`` brings a
store from version ``n - 1`` to ``n``; version 1 is the initial schema. Opening a store
applies the missing ones in one transaction under an advisory lock, so several
processes opening a new or old store at once migrate it exactly once. A store newer
than this verifier, or a schema that holds tables of the same names but is not a gap
store, is refused before anything is written.

The tables match the SQLite store's. ``rows.body`` is TEXT holding the exact
canonical bytes that were hashed (JSONB would re-serialise them). Statement-level
triggers refuse UPDATE, DELETE and TRUNCATE on ``rows``: nothing that goes through
PostgreSQL edits a row by accident; a deliberate edit (dropping them first) is what
the audit is for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from verifier.gaps.alert_table import ALERT_DELIVERIES_DDL_POSTGRES
from verifier.gaps.postgres.conn import lock_key
from verifier.gaps.records import StoreError
from verifier.gaps.row_fields import rows_table_columns

if TYPE_CHECKING:
    import psycopg

STORE_MARKER = "verifier.gap-store"
_OUR_TABLES: tuple[str, ...] = ("schema_version", "meta", "contracts", "runs", "rows", "contents")
_OUR_TABLES += ("seals",)  # version 3
_OUR_TABLES += ("run_shards",)  # version 5
_OUR_TABLES += ("alert_deliveries",)  # version 7


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: ``version`` is what the store is at once it ran."""

    version: int
    description: str
    statements: tuple[str, ...]


_REFUSE = (
    "CREATE TRIGGER rows_no_{op} BEFORE {OP} ON rows"
    " FOR EACH STATEMENT EXECUTE FUNCTION gap_rows_append_only()"
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "gap store: meta, contracts, runs, append-only rows",
        (
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            f"INSERT INTO meta (key, value) VALUES ('store', '{STORE_MARKER}')",
            "CREATE TABLE contracts ("
            " sha256 TEXT PRIMARY KEY, path TEXT NOT NULL, source TEXT NOT NULL)",
            # ordinal orders runs started at the same instant, as SQLite's rowid does.
            "CREATE TABLE runs ("
            " run_id TEXT PRIMARY KEY, contract_id TEXT NOT NULL,"
            " contract_version INTEGER NOT NULL, contract_sha256 TEXT NOT NULL,"
            " started_at TEXT NOT NULL, finished_at TEXT,"
            " status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),"
            " options TEXT NOT NULL, summary TEXT NOT NULL,"
            " ordinal BIGINT GENERATED ALWAYS AS IDENTITY)",
            # The columns of ROW_FIELDS, unchanged since this version: moving or adding
            # one needs a migration of its own, never an edit here.
            f"CREATE TABLE rows ( {rows_table_columns('postgres')})",
            "CREATE INDEX rows_run_id ON rows (run_id, seq)",
            "CREATE FUNCTION gap_rows_append_only() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'gap rows are append-only'; END $$",
            _REFUSE.format(op="update", OP="UPDATE"),
            _REFUSE.format(op="delete", OP="DELETE"),
            _REFUSE.format(op="truncate", OP="TRUNCATE"),
        ),
    ),
    Migration(
        2,
        "the content record: case contents by SHA-256, never updated (purging deletes)",
        (
            "CREATE TABLE contents (sha256 TEXT PRIMARY KEY, body TEXT NOT NULL)",
            "CREATE FUNCTION gap_contents_unchanged() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'stored contents never change'; END $$",
            "CREATE TRIGGER contents_no_update BEFORE UPDATE ON contents"
            " FOR EACH STATEMENT EXECUTE FUNCTION gap_contents_unchanged()",
        ),
    ),
    Migration(
        3,
        "the seal chain: run records, appends and judge-cache entries, append-only",
        (
            "CREATE TABLE seals (n BIGINT PRIMARY KEY, kind TEXT NOT NULL,"
            " subject TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL,"
            " seal_hash TEXT NOT NULL)",
            "CREATE INDEX seals_subject ON seals (subject, n)",
            "CREATE FUNCTION gap_seals_append_only() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'seals are append-only'; END $$",
            *(
                f"CREATE TRIGGER seals_no_{op.lower()} BEFORE {op} ON seals"
                " FOR EACH STATEMENT EXECUTE FUNCTION gap_seals_append_only()"
                for op in ("UPDATE", "DELETE", "TRUNCATE")
            ),
        ),
    ),
    Migration(
        4,
        "the indexes browsing reads through: a run's rows by claim, status and case, runs by time",
        # Each page of verifier.analyses.browse is a range read of one; rows_run_id (run_id,
        # seq) serves a run's unfiltered pages.
        (
            "CREATE INDEX IF NOT EXISTS rows_run_claim ON rows (run_id, claim_id, seq)",
            "CREATE INDEX IF NOT EXISTS rows_run_status ON rows (run_id, status, seq)",
            "CREATE INDEX IF NOT EXISTS rows_run_case ON rows (run_id, case_id, seq)",
            "CREATE INDEX IF NOT EXISTS runs_started ON runs (started_at, ordinal)",
            "CREATE INDEX IF NOT EXISTS runs_contract_started"
            " ON runs (contract_id, started_at, ordinal)",
        ),
    ),
    Migration(
        5,
        "sharded runs: each shard's status and summary under its run",
        (
            "CREATE TABLE run_shards (run_id TEXT NOT NULL, shard INTEGER NOT NULL,"
            " shards INTEGER NOT NULL, started_at TEXT NOT NULL, finished_at TEXT,"
            " status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),"
            " summary TEXT NOT NULL, PRIMARY KEY (run_id, shard))",
        ),
    ),
    Migration(
        6,
        "a run's rows by case id in code-point order, as comparisons pair two runs",
        # ``SqlStore.iter_rows_by_case`` orders by ``case_id COLLATE "C"`` (Python's string
        # order); without an index of that collation every page would sort the run's
        # remaining rows.
        ('CREATE INDEX IF NOT EXISTS rows_case_code ON rows (run_id, case_id COLLATE "C", seq)',),
    ),
    Migration(
        7,
        "the alerts sent: each degradation alert posted, where (hashed) and how it went",
        # So a repeated ``audit --notify`` posts each alert once (verifier.gaps.alert_deliveries).
        ALERT_DELIVERIES_DDL_POSTGRES,
    ),
)


def schema_version() -> int:
    """The version this verifier migrates stores to."""
    return MIGRATIONS[-1].version


def prepare_store(conn: psycopg.Connection, location: str) -> str:
    """Checks the database can hold a store and migrates it; returns the schema's name.

    Raises:
        StoreError: The database is not UTF8, or ``migrate`` refused the schema.
        psycopg.Error: The database refused a statement.
    """
    encoding = conn.execute("SHOW server_encoding").fetchone()
    if encoding is None or str(encoding[0]).upper() not in ("UTF8", "UTF-8"):
        raise StoreError(f"gap store {location}: the database must use UTF8 encoding")
    schema = conn.execute("SELECT current_schema()").fetchone()
    name = str(schema[0]) if schema and schema[0] is not None else ""
    migrate(conn, location, lock_key(name, "migrate"))
    return name


def migrate(conn: psycopg.Connection, location: str, lock: int) -> int:
    """Brings the store in the connection's current schema up to date.

    Args:
        conn: An autocommit connection; the migration runs in its own transaction.
        location: The store, for messages.
        lock: The advisory-lock key that serialises migrations of this store.

    Returns:
        The store's version before the migration (0 for a new store).

    Raises:
        StoreError: The schema belongs to something else, or to a newer verifier.
        psycopg.Error: The database refused a statement.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
        found = conn.execute(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_name = ANY(%s)",
            (list(_OUR_TABLES),),
        ).fetchall()
        present = {name for (name,) in found}
        current = _current_version(conn, location, present)
        if current > schema_version():
            raise StoreError(
                f"gap store {location} has schema version {current}, newer than this "
                f"verifier reads ({schema_version()}): upgrade verifier"
            )
        if "schema_version" not in present:
            conn.execute(
                "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
                " description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
        for migration in MIGRATIONS:
            if migration.version <= current:
                continue
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, description) VALUES (%s, %s)",
                (migration.version, migration.description),
            )
    return current


def _current_version(conn: psycopg.Connection, location: str, present: set[str]) -> int:
    if not present:
        if conn.execute("SELECT current_schema()").fetchone() == (None,):
            raise StoreError(f"gap store {location}: no schema to create it in (check search_path)")
        return 0
    foreign = StoreError(f"{location} holds tables that are not a verifier gap store's")
    if not {"schema_version", "meta"} <= present:
        raise foreign
    marker = conn.execute("SELECT value FROM meta WHERE key = 'store'").fetchone()
    if marker != (STORE_MARKER,):
        raise foreign
    (version,) = conn.execute("SELECT max(version) FROM schema_version").fetchone() or (None,)
    if not isinstance(version, int):
        raise StoreError(f"gap store {location} has no schema version: it is damaged")
    return version
