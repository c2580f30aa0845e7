"""The judge cache in a SQLite store commits as the store's own connection does."""

from __future__ import annotations

from pathlib import Path

from verifier.gaps.sqlite.store import SqliteStore
from verifier.llm.cache import CachedReply, SqliteJudgeCache
from verifier.llm.types import ModelReply

NORMAL = 1  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL


def _entry(key: str) -> CachedReply:
    reply = ModelReply("m-1", "tool_use", {"pass": True, "reason": "ok"})
    return CachedReply(key, "anthropic", "m-1", "p", "s", reply, "2026-01-01T00:00:00Z", "run")


def test_a_put_waits_for_no_fsync_yet_is_stored_and_served(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    SqliteStore(path).close()
    cache = SqliteJudgeCache(path)
    try:
        # FULL (SQLite's default) synced the WAL on every put: 5-7 ms each, one at a
        # time, fewer than a judge run at concurrency 32 makes (ADR 0047).
        assert cache._conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert cache._conn.execute("PRAGMA synchronous").fetchone() == (NORMAL,)
        cache.put(_entry("k1"))
    finally:
        cache.close()
    again = SqliteJudgeCache(path)
    try:
        served = again.get("k1")
    finally:
        again.close()
    assert served is not None and served.reply.tool_input == {"pass": True, "reason": "ok"}
