"""Reaching a PostgreSQL database from a ``postgresql://`` URL without leaking it.

The URL may hold a password (in its user part or as ``?password=``). It is parsed
once; what messages show is ``location`` (user, host, port, database: never the
password), and every error message is scrubbed of the password before it is raised,
because libpq sometimes quotes the connection string it could not use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    import psycopg

_MESSAGE_LIMIT = 200
_CONNECT_TIMEOUT_S = 10


def _import_psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        return None
    return psycopg


@dataclass(frozen=True, slots=True)
class PostgresTarget:
    """A parsed ``postgresql://`` URL: how to connect, and how to name it safely.

    Attributes:
        url: The URL as given, with ``postgresql+driver://`` reduced to
            ``postgresql://`` (libpq's spelling).
        location: ``postgresql://user@host:port/dbname``, for messages.
        secrets: Spellings of the password to scrub from messages.
    """

    url: str
    location: str
    secrets: tuple[str, ...]

    @classmethod
    def parse(cls, url: str, error: Callable[[str], Exception]) -> PostgresTarget:
        """Parses ``url``; ``error`` builds the exception for an unusable one.

        Raises:
            Exception: Built by ``error`` when psycopg is missing or the URL is invalid.
        """
        psycopg = _import_psycopg()
        if psycopg is None:
            raise error("PostgreSQL stores need psycopg: pip install 'verifier-llm[postgres]'")
        _, _, rest = url.partition("://")
        url = "postgresql://" + rest
        raw = _raw_password(url)
        secrets = tuple(s for s in {raw, unquote(raw)} if s)
        try:
            params = psycopg.conninfo.conninfo_to_dict(url)
        except psycopg.Error as exc:
            raise error(f"invalid PostgreSQL URL: {one_line(exc, secrets)}") from None
        password = params.get("password")
        if password:
            secrets = tuple({*secrets, str(password)})
        user = params.get("user")
        host = params.get("host") or params.get("hostaddr") or "localhost"
        port = params.get("port")
        where = f"{host}:{port}" if port else str(host)
        location = f"postgresql://{user + '@' if user else ''}{where}/{params.get('dbname', '')}"
        return cls(url, location, secrets)

    def connect(self, *, autocommit: bool, error: Callable[[str], Exception]) -> psycopg.Connection:
        """Opens a connection (UTF-8, a bounded connect timeout).

        Raises:
            Exception: Built by ``error`` with a one-line, password-free message.
        """
        import psycopg

        with self.errors(error):
            given = psycopg.conninfo.conninfo_to_dict(self.url)
            params: dict[str, Any] = {"autocommit": autocommit, "client_encoding": "UTF8"}
            # Defaults only: what the URL says wins.
            for name, value in (
                ("connect_timeout", _CONNECT_TIMEOUT_S),
                ("application_name", "verifier"),
            ):
                if name not in given:
                    params[name] = value
            return psycopg.connect(self.url, **params)

    @contextmanager
    def errors(self, error: Callable[[str], Exception]) -> Iterator[None]:
        """Turns psycopg's errors into ``error("LOCATION: one line")``."""
        import psycopg

        try:
            yield
        except psycopg.Error as exc:
            detail = one_line(exc, self.secrets)
            if getattr(exc, "sqlstate", None) == _DISK_FULL:
                detail = f"cannot write: the database server's disk is full ({detail})"
            raise error(f"{self.location}: {detail}") from None


_DISK_FULL = "53100"
"""PostgreSQL's SQLSTATE disk_full: the server could not extend a file."""


def one_line(exc: BaseException, secrets: tuple[str, ...]) -> str:
    """The first line of an error, password-free and at most 200 characters."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    text = str(primary or exc or type(exc).__name__)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return scrub(first or type(exc).__name__, secrets)[:_MESSAGE_LIMIT]


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def lock_key(*parts: str) -> int:
    """A signed 64-bit advisory-lock key naming a purpose within one schema."""
    digest = hashlib.sha256("\0".join(("verifier", *parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_in_schema(execute: Callable[..., Any], *parts: str) -> None:
    """Takes the transaction-level advisory lock ``parts`` name in the current schema
    (``chain``: the store's chain lock, which every write that appends a seal holds)."""
    (schema,) = execute("SELECT current_schema()").fetchone() or ("",)
    execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(str(schema), *parts),))


def _raw_password(url: str) -> str:
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        netloc = url.partition("://")[2].partition("/")[0]
    userinfo, at, _ = netloc.rpartition("@")
    if not at:
        return ""
    return userinfo.partition(":")[2]
