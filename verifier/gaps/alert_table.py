"""The ``alert_deliveries`` table's statements, shared by the store migrations that
create it (SQLite schema version 5, PostgreSQL migration 7) and by the side table
that writes it (``verifier.gaps.alert_deliveries``). Plain strings, importing nothing,
so the schema modules can use them without importing the side tables."""

from __future__ import annotations

from typing import Final

__all__ = ["ALERT_DELIVERIES_DDL_POSTGRES", "ALERT_DELIVERIES_DDL_SQLITE"]

_COLUMNS: Final = (
    " alert_id TEXT NOT NULL, destination_sha256 TEXT NOT NULL, destination TEXT NOT NULL,"
    " sent_at TEXT NOT NULL, outcome TEXT NOT NULL, attempts INTEGER NOT NULL,"
    " alert TEXT NOT NULL)"
)
_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS alert_deliveries_destination"
    " ON alert_deliveries (destination_sha256, alert_id)"
)
ALERT_DELIVERIES_DDL_SQLITE: Final = (
    # No AUTOINCREMENT (it would add sqlite_sequence to every store): ``id`` only orders
    # the rows, and no seal covers it.
    "CREATE TABLE IF NOT EXISTS alert_deliveries (id INTEGER PRIMARY KEY," + _COLUMNS,
    _INDEX,
)
ALERT_DELIVERIES_DDL_POSTGRES: Final = (
    "CREATE TABLE IF NOT EXISTS alert_deliveries"
    " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY," + _COLUMNS,
    _INDEX,
)
