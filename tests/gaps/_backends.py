"""One interface over the two store backends, so store and audit tests run on both.

A backend names an empty store (``target``, as ``--store`` takes it), opens it, and
reaches into it as an intruder would: ``tamper`` drops the append-only triggers and
runs SQL written with ``?`` placeholders (turned into ``%s`` for PostgreSQL).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

from tests.gaps import _support
from verifier.gaps.store import GapStore, open_store

Statement = tuple[str, tuple[Any, ...]] | str


class Backend(Protocol):
    name: Literal["sqlite", "postgres"]
    target: str

    def open(self) -> GapStore: ...

    def tamper(self, *statements: Statement) -> None: ...

    def column(self, name: str, seq: int) -> Any: ...


class SqliteBackend:
    name: Literal["sqlite"] = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.target = str(path)

    def open(self) -> GapStore:
        return open_store(self.target)

    def tamper(self, *statements: Statement) -> None:
        _support.tamper(self.path, *statements)

    def column(self, name: str, seq: int) -> Any:
        return _support.column(self.path, name, seq)


class PostgresBackend:
    name: Literal["postgres"] = "postgres"

    def __init__(self, url: str) -> None:
        self.target = url

    def open(self) -> GapStore:
        return open_store(self.target)

    def tamper(self, *statements: Statement) -> None:
        import psycopg

        with psycopg.connect(self.target) as conn:  # one transaction, committed on exit
            for trigger in ("rows_no_update", "rows_no_delete", "rows_no_truncate"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger} ON rows")  # type: ignore[arg-type]
            for statement in statements:
                sql, params = (statement, ()) if isinstance(statement, str) else statement
                conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]

    def column(self, name: str, seq: int) -> Any:
        import psycopg

        with psycopg.connect(self.target) as conn:
            found = conn.execute(f"SELECT {name} FROM rows WHERE seq = %s", (seq,))  # type: ignore[arg-type]
            (value,) = found.fetchone() or (None,)
        return value


def stored_body(backend: Backend, seq: int) -> str:
    return str(backend.column("body", seq))
