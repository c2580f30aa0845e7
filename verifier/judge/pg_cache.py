"""The judge cache of a PostgreSQL gap store: a ``judge_cache`` table beside its rows.

The same entries, keys and replace-on-put behaviour as ``SqliteJudgeCache``, so a team
sharing one PostgreSQL store also shares the verdicts already paid for.
"""

from __future__ import annotations

import threading

import orjson

from verifier.gaps._postgres_conn import PostgresTarget, lock_key
from verifier.judge.cache import CachedReply, CacheError

__all__ = ["PostgresJudgeCache"]

_CREATE = (
    "CREATE TABLE IF NOT EXISTS judge_cache (key TEXT PRIMARY KEY,"
    " provider TEXT NOT NULL, model TEXT NOT NULL,"
    " prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL,"
    " entry TEXT NOT NULL)"
)
_PUT = (
    "INSERT INTO judge_cache (key, provider, model, prompt_sha, sampling_sha, entry)"
    " VALUES (%s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (key) DO UPDATE SET provider = EXCLUDED.provider, model = EXCLUDED.model,"
    " prompt_sha = EXCLUDED.prompt_sha, sampling_sha = EXCLUDED.sampling_sha,"
    " entry = EXCLUDED.entry"
)


class PostgresJudgeCache:
    """Cache entries in the ``judge_cache`` table of a PostgreSQL gap store.

    Args:
        url: The store's ``postgresql://`` URL; the table goes in the same schema.

    Raises:
        CacheError: The database cannot be reached or refuses the table; one line,
            never holding the URL's password.
    """

    def __init__(self, url: str) -> None:
        self._target = PostgresTarget.parse(url, CacheError)
        self._lock = threading.Lock()
        self._conn = self._target.connect(autocommit=True, error=_cache_error)
        try:
            with self._target.errors(_cache_error), self._conn.transaction():
                # CREATE TABLE IF NOT EXISTS races with itself in PostgreSQL: two
                # processes creating the table at once take turns on a lock.
                (schema,) = self._conn.execute("SELECT current_schema()").fetchone() or ("",)
                key = lock_key(str(schema), "judge_cache")
                self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (key,))
                self._conn.execute(_CREATE)
        except BaseException:
            self._conn.close()
            raise

    def get(self, key: str) -> CachedReply | None:
        """The entry stored under ``key``, or ``None``."""
        with self._lock, self._target.errors(_cache_error):
            row = self._conn.execute(
                "SELECT entry FROM judge_cache WHERE key = %s", (key,)
            ).fetchone()
        return CachedReply.from_json(orjson.loads(row[0])) if row else None

    def put(self, entry: CachedReply) -> None:
        """Stores ``entry`` under its key, replacing any entry already there."""
        params = (
            entry.key,
            entry.provider,
            entry.model,
            entry.prompt_sha,
            entry.sampling_sha,
            orjson.dumps(entry.as_json()).decode(),
        )
        with self._lock, self._target.errors(_cache_error):
            self._conn.execute(_PUT, params)

    def close(self) -> None:
        """Closes the connection."""
        self._conn.close()


def _cache_error(message: str) -> CacheError:
    return CacheError(f"judge cache {message}")
