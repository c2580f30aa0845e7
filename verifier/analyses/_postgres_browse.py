"""What browsing needs of the PostgreSQL store: its SQL for run order and text search.

The indexes browsing reads through are migration 4 of the schema (``_postgres_schema``).
"""

from __future__ import annotations

from typing import Any

from verifier.gaps.postgres.store import PostgresStore

RUN_ORDER = "started_at DESC, ordinal DESC"
"""Newest first, as ``PostgresStore.recent_runs`` orders runs."""

# json, not jsonb: the body is parsed once to read one key, not converted.
REASON = "(body::json ->> 'reason')"
"""The row's reason, read from its body (it has no column of its own)."""


def contains(column: str) -> str:
    """SQL true when ``column`` holds the (lower-cased) parameter, ignoring case."""
    return f"strpos(lower({column}), ?) > 0"


def body_holds(needle: str) -> tuple[str, Any]:
    """SQL true when a row's body holds the lower-cased ``needle``, and its parameter."""
    return contains("body"), needle


def select(store: PostgresStore, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Runs a read query written with ``?`` placeholders (made ``%s`` here)."""
    return store.select(query.replace("?", "%s"), params)
