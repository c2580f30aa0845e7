"""Fixtures of the library's run tests."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A schema of its own on the server VERIFIER_TEST_POSTGRES_URL names."""
    server = os.environ.get("VERIFIER_TEST_POSTGRES_URL")
    if not server:
        pytest.skip("VERIFIER_TEST_POSTGRES_URL is not set (a PostgreSQL server to test on)")
    psycopg = pytest.importorskip("psycopg")
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in server else "?"
    yield f"{server}{separator}options=-csearch_path%3D{schema}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
