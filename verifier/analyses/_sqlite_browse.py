"""What browsing needs of the SQLite store: its SQL for run order and text search.

The indexes browsing reads through are part of the file's schema (version 4, in
``_sqlite_file``).
"""

from __future__ import annotations

from typing import Any

from verifier.gaps.sqlite.store import SqliteStore

RUN_ORDER = "started_at DESC, rowid DESC"
"""Newest first, as ``SqliteStore.recent_runs`` orders runs."""

REASON = "json_extract(body, '$.reason')"
"""The row's reason, read from its body (it has no column of its own)."""


def contains(column: str) -> str:
    """SQL true when ``column`` holds the (lower-cased) parameter, ignoring ASCII case.

    SQLite's ``lower`` folds ASCII letters only: a search for ``É`` finds ``é`` in the
    text only when it is written lower-case there.
    """
    return f"instr(lower({column}), ?) > 0"


def body_holds(needle: str) -> tuple[str, Any]:
    """SQL true when a row's body holds the lower-cased ``needle`` ignoring ASCII case,
    and its parameter: ``LIKE`` folds ASCII letters as ``lower`` does (so it finds what
    ``contains`` finds) without copying each body to lower-case it, half the cost."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "body LIKE ? ESCAPE '\\'", f"%{escaped}%"


def select(store: SqliteStore, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Runs a read query written with ``?`` placeholders."""
    return store.select(query, params)
