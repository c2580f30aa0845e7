"""Stores to test on, as the gap store tests have them: SQLite and PostgreSQL."""

from tests.gaps.conftest import postgres_server, postgres_url, store_backend  # noqa: F401 (fixtures)
