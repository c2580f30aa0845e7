"""Tables kept beside a store's gap rows, in the store's own database.

Judge batches waiting to be collected, judge calibrations and test-retest resamples
are not gap rows: they are not hash-chained, and the ledger's rows are updated. But
they decide things, so each write to them is sealed in the store's seal chain in its
transaction (``write_sealed``, ``insert_sealed``; ``verifier.gaps.record_seals``).
They live in the same SQLite file or PostgreSQL schema as the rows, so one
``--store`` names everything a team keeps.

Statements are written once, with ``?`` placeholders and SQL both databases accept
(``INSERT ... ON CONFLICT``, ``RETURNING``); only the ``CREATE`` statements differ.
Tables are created on first use, under an advisory lock in PostgreSQL (two processes
creating a table at once would otherwise race).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier._internal.closing import Closing
from verifier.gaps.seals import StoredSeal
from verifier.gaps.sql import POSTGRES, SQLITE, Dialect
from verifier.gaps.store import is_postgres_url
from verifier.gaps.target import sqlite_path

if TYPE_CHECKING:
    from verifier.gaps.record_seals import SealedRecords

__all__ = ["SideTables", "TableSpec", "sqlite_path"]

ErrorFactory = Callable[[str], Exception]
SealSpec = tuple[str, str, Any]
"""A seal to append: its kind, subject and payload (``verifier.gaps.seals``)."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A side table: its name and how each database creates it (idempotently)."""

    name: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]

    @classmethod
    def numbered(cls, name: str, columns: str, *extra: str) -> TableSpec:
        """A table whose rows are numbered by an ``id`` each database assigns.

        Args:
            name: The table.
            columns: Its other columns, as ``CREATE TABLE`` lists them, with the
                closing parenthesis.
            extra: Statements run after it (indexes), the same in both databases.
        """
        return cls(
            name,
            sqlite=(
                f"CREATE TABLE IF NOT EXISTS {name} (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                + columns,
                *extra,
            ),
            postgres=(
                f"CREATE TABLE IF NOT EXISTS {name}"
                " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY," + columns,
                *extra,
            ),
        )


class SideTables(Closing):
    """A connection to a store's database for one side table.

    Use ``SideTables.open``. Every database error leaves as ``error(message)``, one
    line naming the store (never a password).
    """

    def __init__(
        self,
        conn: Any,
        *,
        dialect: Dialect,
        location: str,
        errors: Callable[[], AbstractContextManager[None]],
        table: str,
        created: bool,
        target: str = "",
    ) -> None:
        self._conn = conn
        self._target = target
        self._chained = False
        self.dialect = dialect
        self.location = location
        self._errors = errors  # turns the driver's errors into the caller's
        self._table = table
        # Opened to write, the table was just created; read-only, it is looked up once.
        self._exists: bool | None = True if created else None

    @classmethod
    def open(
        cls, target: str, table: TableSpec, *, error: ErrorFactory, read_only: bool = False
    ) -> SideTables:
        """Connects to the store ``target`` and, unless ``read_only``, creates ``table``.

        Raises:
            Exception: Built by ``error`` when the store cannot be reached or refuses.
        """
        if is_postgres_url(target):
            return cls._open_postgres(target, table, error=error, read_only=read_only)
        path = sqlite_path(target)
        if path is None:
            raise error(f"{target}: not a SQLite file or postgresql:// URL")
        if not read_only and not (Path(path).is_file() and Path(path).stat().st_size):
            from verifier.gaps.store import open_store

            open_store(target).close()  # a new file is a gap store first: its seals go there
        try:
            if read_only:
                uri = Path(path).resolve().as_uri() + "?mode=ro"
                conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            else:
                conn = sqlite3.connect(path, timeout=30, isolation_level=None)
                for statement in table.sqlite:
                    conn.execute(statement)
        except sqlite3.Error as exc:
            raise error(f"{path}: {exc}") from None
        errors = partial(_sqlite_errors, error, path)
        return cls(
            conn, dialect=SQLITE, location=path, errors=errors, table=table.name,
            created=not read_only, target=target,
        )  # fmt: skip

    @classmethod
    def _open_postgres(
        cls, url: str, table: TableSpec, *, error: ErrorFactory, read_only: bool
    ) -> SideTables:
        from verifier.gaps.postgres.conn import PostgresTarget, lock_in_schema

        target = PostgresTarget.parse(url, error)
        conn = target.connect(autocommit=True, error=error)
        try:
            if not read_only:
                with target.errors(error), conn.transaction():
                    lock_in_schema(conn.execute, table.name)
                    for statement in table.postgres:
                        conn.execute(statement)
        except BaseException:
            conn.close()
            raise
        errors = partial(target.errors, error)
        return cls(
            conn, dialect=POSTGRES, location=target.location, errors=errors, table=table.name,
            created=not read_only, target=url,
        )  # fmt: skip

    def table_exists(self) -> bool:
        """Whether the side table exists (a read-only user may find none yet); asked of
        the database once per connection."""
        if self._exists is None:
            self._exists = self.has_table(self._table)
        return self._exists

    def has_table(self, name: str) -> bool:
        """Whether the store's database has a table ``name`` (in the current schema)."""
        return bool(self._query(self.dialect.has_table_query, (name,))[0][0])

    def columns(self) -> frozenset[str]:
        """The names of the side table's columns (a table made by an older release may
        lack some its ``TableSpec`` now creates)."""
        found = self._query(self.dialect.columns_query, (self._table,))
        return frozenset(str(row[0]) for row in found)

    def fetch(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a query (``?`` placeholders) returns."""
        return self._query(self.dialect.sql(statement), params)

    def _query(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        with self._errors():
            return list(self._conn.execute(sql, params).fetchall())

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        """Runs one statement in its own transaction."""
        with self._errors():
            self._conn.execute(self.dialect.sql(statement), params)

    def execute_many(self, statement: str, rows: Iterable[Sequence[Any]]) -> None:
        """Runs one statement per row, all in one transaction."""
        with self._errors(), self._transaction() as tx:
            tx.executemany(self.dialect.sql(statement), list(rows))

    def execute_script(self, statements: Sequence[str]) -> None:
        """Runs several statements (no parameters) in one transaction: all or none."""
        with self._errors(), self._transaction() as tx:
            for statement in statements:
                tx.execute(statement)

    @contextmanager
    def _transaction(self, *, chained: bool = False) -> Iterator[Any]:
        """One write transaction (``chained``: holding the store's chain lock, as every
        write that appends a seal must); yields what executes in it."""
        if self.dialect is POSTGRES:
            from verifier.gaps.postgres.conn import lock_in_schema

            with self._conn.transaction(), self._conn.cursor() as cursor:
                if chained:
                    lock_in_schema(cursor.execute, "chain")
                yield cursor
        else:
            from verifier.gaps.sqlite.file import transaction

            # BEGIN IMMEDIATE takes SQLite's write lock, which is the chain's.
            with transaction(self._conn):
                yield self._conn

    def execute_sealed(
        self, statement: str, params: Sequence[Any], *, kind: str, subject: str, payload: Any
    ) -> None:
        """Runs one statement and appends a seal (``verifier.gaps.seals``) recording it,
        in one transaction that holds the store's chain lock."""
        self.write_sealed([(statement, params)], [(kind, subject, payload)])

    def append_sealed(self, *, kind: str, subject: str, payload: Any) -> StoredSeal:
        """Appends a seal whose body is the record itself (a gate lock), in a
        transaction that holds the store's chain lock; returns it."""
        return self.write_sealed([], [(kind, subject, payload)])[0]

    def write_sealed(
        self, writes: Sequence[tuple[str, Sequence[Any]]], seals: Sequence[SealSpec]
    ) -> list[StoredSeal]:
        """Runs ``writes`` (``?`` placeholders) and appends ``seals`` (kind, subject,
        payload), in one transaction that holds the store's chain lock: the rows and
        the seals that record them are written together or not at all.

        Returns:
            The seals written, in order.
        """
        from verifier.gaps.seals import append_seal

        if not self._chained:
            # The seals go to the store's chain: a store not made yet is made first.
            if not self.has_table("seals"):
                from verifier.gaps.store import open_store

                open_store(self._target).close()
            self._chained = True
        with self._errors(), self._transaction(chained=True) as tx:
            for statement, params in writes:
                tx.execute(self.dialect.sql(statement), params)
            return [append_seal(tx.execute, self.dialect.mark, *seal) for seal in seals]

    def insert_sealed(self, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
        """Inserts rows that never change into the side table, each sealed under its own
        hash (``verifier.gaps.record_seals``), all in one transaction; returns how many."""
        from verifier.gaps.record_seals import record_payload, record_sha256, record_subject

        insert = (
            f"INSERT INTO {self._table} ({', '.join(columns)})"
            f" VALUES ({', '.join('?' for _ in columns)})"
        )
        writes: list[tuple[str, Sequence[Any]]] = []
        seals: list[SealSpec] = []
        for row in rows:
            values = dict(zip(columns, row, strict=True))
            writes.append((insert, tuple(row)))
            subject = record_subject(self._table, record_sha256(values))
            seals.append(("record", subject, record_payload(self._table, values)))
        if writes:
            self.write_sealed(writes, seals)
        return len(writes)

    def adopt_unsealed(self, columns: Sequence[str], key: Sequence[str] | None = None) -> int:
        """Seals the rows an earlier release wrote, once: when the table has rows and no
        seal names any of them (``key``: the columns a row is sealed under; ``None``:
        its own hash). Returns how many were sealed. A table once sealed is never
        adopted again, so a row added behind the store's back later stays unsealed."""
        from verifier.gaps.record_seals import (
            key_of,
            record_payload,
            record_sha256,
            record_subject,
        )

        if self.sealed_records().counts:
            return 0
        rows = self.fetch(f"SELECT {', '.join(columns)} FROM {self._table}")
        seals: list[SealSpec] = []
        for row in rows:
            values = dict(zip(columns, row, strict=True))
            found = key_of(values, key) if key is not None else record_sha256(values)
            subject = record_subject(self._table, found)
            seals.append(("record", subject, record_payload(self._table, values)))
        if seals:
            self.write_sealed([], seals)
        return len(seals)

    def records(
        self,
        columns: Sequence[str],
        *,
        where: str = "",
        params: Sequence[Any] = (),
        order: str = "id",
    ) -> list[dict[str, Any]]:
        """The side table's rows, each as column to value (none when the table does not
        exist yet).

        Args:
            columns: The columns read.
            where: A condition (``?`` placeholders), or ``""`` for every row.
            params: The condition's parameters, then the order's.
            order: The ``ORDER BY`` clause's text.
        """
        if not self.table_exists():
            return []
        clause = f" WHERE {where}" if where else ""
        query = f"SELECT {', '.join(columns)} FROM {self._table}{clause} ORDER BY {order}"
        return [dict(zip(columns, row, strict=True)) for row in self.fetch(query, params)]

    def sealed(
        self, records: Sequence[Mapping[str, Any]], *, each_seal_once: bool = False
    ) -> list[bool]:
        """Whether each of ``records`` (rows of a table whose rows never change, as
        ``records`` reads them) is exactly what a seal of it recorded.

        Args:
            each_seal_once: A seal vouches for one row: of identical rows, only as many
                as were sealed are (a row copied over another counts once per seal).
        """
        from verifier.gaps.record_seals import record_sha256

        if not records:
            return []
        seals = self.sealed_records()
        left = dict(seals.counts)
        found = []
        for values in records:
            key = record_sha256(values)
            held = seals.holds(key, values) and (not each_seal_once or left.get(key, 0) > 0)
            if held and each_seal_once:
                left[key] -= 1
            found.append(held)
        return found

    def sealed_records(self) -> SealedRecords:
        """The side table's ``record`` seals (none when the store has no seal chain)."""
        from verifier.gaps.record_seals import RECORD_SEALS_QUERY, SealedRecords
        from verifier.gaps.seals import StoredSeal

        if not self.has_table("seals"):
            return SealedRecords.of(self._table, ())
        found = self.fetch(RECORD_SEALS_QUERY)
        return SealedRecords.of(self._table, (StoredSeal(*row) for row in found))

    def close(self) -> None:
        self._conn.close()


@contextmanager
def _sqlite_errors(error: ErrorFactory, location: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise error(f"{location}: {exc}") from None
