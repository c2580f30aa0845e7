"""The judge cache of a PostgreSQL gap store: a ``judge_cache`` table beside its rows.

The same entries, keys and replace-on-put behaviour as ``SqliteJudgeCache``, so a team
sharing one PostgreSQL store also shares the verdicts already paid for; each entry is
sealed into the store's seal chain when written and served only while it matches
its seal (see ``verifier.llm.cache``).
"""

from __future__ import annotations

import threading

import orjson

from verifier.gaps.seals import CACHE_ENTRY_QUERY, StoredSeal, cache_entry_sealed, cache_payload
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.llm.cache import CachedReply, CacheError, RejectedEntries

__all__ = ["PostgresJudgeCache"]

_CREATE = (
    "CREATE TABLE IF NOT EXISTS judge_cache (key TEXT PRIMARY KEY,"
    " provider TEXT NOT NULL, model TEXT NOT NULL,"
    " prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL,"
    " entry TEXT NOT NULL)"
)
_TABLE = TableSpec("judge_cache", sqlite=(_CREATE,), postgres=(_CREATE,))
_PUT = (
    "INSERT INTO judge_cache (key, provider, model, prompt_sha, sampling_sha, entry)"
    " VALUES (?, ?, ?, ?, ?, ?)"
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
        from verifier.errors import VerifierError
        from verifier.gaps.postgres.store import PostgresStore

        # The store's schema (its seal chain above all) is created or migrated first.
        try:
            PostgresStore(url).close()
        except VerifierError as exc:
            raise CacheError(f"judge cache {exc}") from None
        self._lock = threading.Lock()
        self._rejected = RejectedEntries()
        self._db = SideTables.open(url, _TABLE, error=_cache_error)

    def get(self, key: str) -> CachedReply | None:
        """The entry stored under ``key`` if it matches its seal, else ``None``."""
        with self._lock:
            rows = self._db.fetch(CACHE_ENTRY_QUERY, (key,))
        if not rows:
            return None
        seal = StoredSeal(*rows[0][1:]) if rows[0][1] is not None else None
        if not cache_entry_sealed(seal, key, rows[0][0]):
            self._rejected.note(key, seal is not None)
            return None
        return CachedReply.from_json(orjson.loads(rows[0][0]))

    def rejected(self, key: str) -> str | None:
        """Why ``get`` refused the entry stored under ``key``, or ``None``."""
        return self._rejected.why(key)

    def put(self, entry: CachedReply) -> None:
        """Stores ``entry`` under its key, replacing any entry already there, and seals it."""
        params, text = entry.stored()
        with self._lock:
            self._db.execute_sealed(
                _PUT, params, kind="cache", subject=entry.key, payload=cache_payload(text)
            )

    def close(self) -> None:
        """Closes the connection."""
        self._db.close()


def _cache_error(message: str) -> CacheError:
    return CacheError(f"judge cache {message}")
