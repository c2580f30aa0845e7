"""Stores to test on: a SQLite file, and a fresh schema in a PostgreSQL server.

The server is ``VERIFIER_TEST_POSTGRES_URL`` when set (``.ci/run`` starts one and sets
it); otherwise one is started for the session in a temporary folder, the way
``.ci/run`` does (``tests/gaps/_postgres.py``). Only when none can be started are the
PostgreSQL tests skipped, and under CI (``CI`` set) they fail instead: a CI run
must never pass by not testing PostgreSQL.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

from tests.gaps._backends import Backend, PostgresBackend, SqliteBackend

URL_VARIABLE = "VERIFIER_TEST_POSTGRES_URL"


def _unavailable(reason: str) -> NoReturn:
    message = (
        f"no PostgreSQL server for the PostgreSQL store tests: {reason} "
        f"(set {URL_VARIABLE}, or install Debian's postgresql package)"
    )
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for the whole test session."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[dev]')")
    url = os.environ.get(URL_VARIABLE)
    if url:
        yield url
        return
    from tests.gaps._postgres import ServerUnavailable, start_server, stop_server

    # Not under pytest's tmp_path: as root the cluster belongs to the postgres user,
    # who cannot enter root's private pytest folders.
    directory = Path(tempfile.mkdtemp(prefix="verifier-pg-"))
    try:
        try:
            url = start_server(directory)
        except ServerUnavailable as exc:
            _unavailable(str(exc))
        yield url
    finally:
        stop_server(directory)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A store URL of its own: the server's database with a new, empty schema."""
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")  # type: ignore[arg-type]
    separator = "&" if "?" in postgres_server else "?"
    yield f"{postgres_server}{separator}options=-csearch_path%3D{schema}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "postgres"])
def store_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """An empty store on each backend."""
    if request.param == "sqlite":
        return SqliteBackend(tmp_path / "gaps.db")
    return PostgresBackend(request.getfixturevalue("postgres_url"))
