"""One interface over the two store backends, so store and audit tests run on both.

A backend names an empty store (``target``, as ``--store`` takes it), opens it, and
reaches into it as an intruder would: ``tamper`` drops the append-only triggers and
runs SQL written with ``?`` placeholders (turned into ``%s`` for PostgreSQL).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Literal, Protocol

from tests.gaps import _support
from verifier._internal.canonical import canonical_json
from verifier.gaps.chain import GENESIS
from verifier.gaps.seals import seal_hash_of
from verifier.gaps.store import GapStore, open_store

Statement = tuple[str, tuple[Any, ...]] | str


class Backend(Protocol):
    name: Literal["sqlite", "postgres"]
    target: str

    def open(self) -> GapStore: ...

    def tamper(self, *statements: Statement) -> None: ...

    def column(self, name: str, seq: int) -> Any: ...

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...


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

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = sqlite3.connect(self.path)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()


class PostgresBackend:
    name: Literal["postgres"] = "postgres"

    def __init__(self, url: str) -> None:
        self.target = url

    def open(self) -> GapStore:
        return open_store(self.target)

    def tamper(self, *statements: Statement) -> None:
        import psycopg

        with psycopg.connect(self.target) as conn:  # one transaction, committed on exit
            conn.execute("DROP TRIGGER IF EXISTS contents_no_update ON contents")
            for table in ("rows", "seals"):
                for op in ("update", "delete", "truncate"):
                    trigger = f"DROP TRIGGER IF EXISTS {table}_no_{op} ON {table}"
                    conn.execute(trigger)  # type: ignore[arg-type]
            for statement in statements:
                sql, params = (statement, ()) if isinstance(statement, str) else statement
                conn.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]

    def column(self, name: str, seq: int) -> Any:
        import psycopg

        with psycopg.connect(self.target) as conn:
            found = conn.execute(f"SELECT {name} FROM rows WHERE seq = %s", (seq,))  # type: ignore[arg-type]
            (value,) = found.fetchone() or (None,)
        return value

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.target) as conn:
            return conn.execute(sql.replace("?", "%s"), params).fetchall()  # type: ignore[arg-type]


def reseal(backend: Backend, *, keep: int | None = None) -> None:
    """Rewrites the seal chain to agree with the rows and run records as they now
    stand, as an intruder who knows the scheme would after editing them.

    Args:
        keep: Keep only the first ``keep`` seals (the rest are dropped).
    """
    rows = dict(backend.query("SELECT seq, row_hash FROM rows"))
    runs = {
        r[0]: r
        for r in backend.query(
            "SELECT run_id, contract_id, contract_version, contract_sha256, started_at,"
            " finished_at, status, options, summary FROM runs"
        )
    }
    seals = backend.query("SELECT n, kind, subject, body FROM seals ORDER BY n")
    bodies = []
    for n, kind, subject, text in seals[:keep]:
        body = json.loads(text)
        seq = body["rows"]["seq"]
        body["rows"]["hash"] = rows.get(seq, body["rows"]["hash"]) if seq else GENESIS
        run = runs.get(subject)
        if run is not None and kind == "begin":
            fields = ("contract_id", "contract_version", "contract_sha256", "started_at")
            body["run"].update(zip(fields, run[1:5], strict=True), options=json.loads(run[7]))
        if run is not None and kind == "end":
            body["run"].update(finished_at=run[5], status=run[6], summary=json.loads(run[8]))
        bodies.append((n, kind, subject, body))
    backend.tamper("DELETE FROM seals", *chained(bodies))


def chained(seals: list[tuple[int, str, str, dict[str, Any]]]) -> list[Statement]:
    """The INSERTs of ``seals`` (n, kind, subject, body) linked again from the genesis
    hash, each body's ``n`` and ``prev_hash`` set to its place."""
    statements: list[Statement] = []
    prev = GENESIS
    for n, kind, subject, body in seals:
        sealed = canonical_json({**body, "n": n, "prev_hash": prev}).decode("utf-8")
        new_hash = seal_hash_of(prev, sealed)
        row = (n, kind, subject, sealed, prev, new_hash)
        statements.append(("INSERT INTO seals VALUES (?, ?, ?, ?, ?, ?)", row))
        prev = new_hash
    return statements


def head_hash(backend: Backend) -> str:
    """The store's head as ``verifier audit`` prints it: the last seal's hash."""
    (found,) = backend.query("SELECT seal_hash FROM seals ORDER BY n DESC LIMIT 1")
    return str(found[0])


def stored_body(backend: Backend, seq: int) -> str:
    return str(backend.column("body", seq))
