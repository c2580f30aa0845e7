"""The session advisory locks that make a PostgreSQL store the one writer of a run.

A whole-run writer holds the run's lock exclusively; the shards of a sharded run
hold it shared and each its own part exclusively, so shards write side by side and a
whole-run writer is refused meanwhile (ADR 0043). The locks are the session's: the
server drops them with a dead connection.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from verifier.gaps._run_lock import still_written
from verifier.gaps.postgres.conn import lock_key
from verifier.gaps.shards import Shard

Query = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]

_HELD = (
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid::bigint = %s AND objid::bigint = %s AND objsubid = 1 AND granted)"
)


class RunLocks:
    """The runs one store's session writes, and the locks that say so.

    Args:
        schema: The store's schema (lock keys are the schema's).
        query: Runs one statement on the store's own session, outside any snapshot.
    """

    def __init__(self, schema: str, query: Query) -> None:
        self._schema = schema
        self._query = query
        self.writing: set[str] = set()

    def hold(self, run_id: str, shard: Shard | None, *, wait: float) -> None:
        """Takes the run's lock, waiting up to ``wait`` seconds for a holder to let go
        before refusing.

        The server drops a killed writer's lock only once it notices the dead client,
        which is after the statement it was running (a commit, a copy) ends: a resume
        started at once can find the lock still held for a moment.

        Raises:
            StoreError: Another session holds the lock still.
        """
        if run_id in self.writing:
            return
        deadline = time.monotonic() + wait
        pause = 0.02
        while not self._try_hold(run_id, shard):
            if time.monotonic() >= deadline:
                raise still_written(run_id if shard is None else f"{run_id} (shard {shard.label})")
            time.sleep(pause)
            pause = min(pause * 2, 0.25)
        self.writing.add(run_id)

    def _try_hold(self, run_id: str, shard: Shard | None) -> bool:
        key = self._run_key(run_id)
        if shard is None:
            (held,) = self._query("SELECT pg_try_advisory_lock(%s)", (key,))[0]
            return bool(held)
        # Shards share the run and each holds its own part alone.
        (held,) = self._query("SELECT pg_try_advisory_lock_shared(%s)", (key,))[0]
        if held:
            part = self._shard_key(run_id, shard)
            (held,) = self._query("SELECT pg_try_advisory_lock(%s)", (part,))[0]
            if not held:
                self._query("SELECT pg_advisory_unlock_shared(%s)", (key,))
        return bool(held)

    def let_go(self, run_id: str, shard: Shard | None) -> None:
        """Lets the run's lock go, if this session holds it."""
        if run_id not in self.writing:
            return
        self.writing.discard(run_id)
        key = self._run_key(run_id)
        if shard is None:
            self._query("SELECT pg_advisory_unlock(%s)", (key,))
        else:
            self._query(
                "SELECT pg_advisory_unlock_shared(%s), pg_advisory_unlock(%s)",
                (key, self._shard_key(run_id, shard)),
            )

    def written(self, run_id: str) -> bool:
        """Whether a session (this one included) holds the run's lock now."""
        if run_id in self.writing:
            return True
        key = self._run_key(run_id)
        # Held by a whole-run writer (exclusively) or by shards (shared): the server's
        # list of locks says either, and reading it takes no lock a writer could meet.
        (written,) = self._query(_HELD, ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF))[0]
        return bool(written)

    def _run_key(self, run_id: str) -> int:
        return lock_key(self._schema, "run", run_id)

    def _shard_key(self, run_id: str, shard: Shard) -> int:
        return lock_key(self._schema, "shard", run_id, shard.label)
