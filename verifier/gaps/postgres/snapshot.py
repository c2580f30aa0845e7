"""One snapshot of a PostgreSQL store, shared by every connection a long read opens.

The audit reads rows, seals, run records, contracts and contents, several of them
at once on connections of their own (a stream does not wait for another). Each
connection in its own transaction would see the store at another moment, and a run
that began or ended between two of them would look like damage. So a snapshot is
taken once, in a ``REPEATABLE READ READ ONLY`` transaction that exports it
(``pg_export_snapshot``) and stays open; short reads go through that transaction, and
each stream's connection imports the same snapshot (``SET TRANSACTION SNAPSHOT``)
before its first statement. A server-side cursor lives inside its connection's
transaction, so streams stay streams: memory does not grow with the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

    from verifier.gaps.postgres.conn import PostgresTarget


class PostgresSnapshot:
    """An exported snapshot and the open transaction that holds it.

    Args:
        target: The database.
        error: Builds the exception for a failure (a one-line, password-free message).
    """

    def __init__(self, target: PostgresTarget, error: Callable[[str], Exception]) -> None:
        self.conn = target.connect(autocommit=False, error=error)
        try:
            with target.errors(error):
                _repeatable_read(self.conn)
                found = self.conn.execute("SELECT pg_export_snapshot()").fetchone()
                assert found is not None  # the function returns one row
                self.id = str(found[0])
        except BaseException:
            self.conn.close()
            raise

    def join(self, conn: psycopg.Connection[Any]) -> None:
        """Makes ``conn``'s next transaction read this snapshot (before any statement)."""
        from psycopg import sql

        _repeatable_read(conn)
        conn.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(self.id)))

    def close(self) -> None:
        """Ends the transaction (it wrote nothing) and the connection."""
        self.conn.close()


def _repeatable_read(conn: psycopg.Connection[Any]) -> None:
    import psycopg

    conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
    conn.read_only = True
