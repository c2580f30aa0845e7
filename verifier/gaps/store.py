"""What every gap store offers, and how a store is named on the command line.

A store keeps runs, the contracts they checked, and the hash-chained rows. It is
append-only: there is no API to update or delete a row. ``open_store`` turns a target
(a path, ``sqlite:///path`` or ``postgresql://...``) into a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Protocol, Self

from verifier.gaps.records import (
    CHAIN_SUMMARY_KEY,
    RUN_STATUSES,
    DuplicateRowId,
    RunChainRecord,
    RunRecord,
    RunStatus,
    StoredContract,
    StoredRow,
    StoreError,
    record_run_end,
)
from verifier.gaps.run_refs import parse_reference
from verifier.gaps.seals import StoredSeal

# The records are defined beside the backends (``verifier.gaps.records``) and offered
# here too, where every caller of a store looks for them.
__all__ = [
    "CHAIN_SUMMARY_KEY",
    "RUN_STATUSES",
    "DuplicateRowId",
    "GapStore",
    "RunChainRecord",
    "RunRecord",
    "RunStatus",
    "StoreError",
    "StoredContract",
    "StoredRow",
    "is_postgres_url",
    "open_store",
    "record_run_end",
    "redacted_target",
    "resolve_run_id",
]


class GapStore(Protocol):
    """An append-only store of runs and hash-chained gap rows."""

    @property
    def location(self) -> str:
        """Where the store is, for messages (never contains credentials)."""
        ...

    def begin_run(
        self,
        run_id: str,
        *,
        contract_id: str,
        contract_version: int,
        contract_sha256: str,
        contract_path: str,
        contract_source: str,
        started_at: str,
        options: Mapping[str, Any],
    ) -> None:
        """Records a run as running, with its contract; resumes an unfinished run."""
        ...

    def append(
        self, drafts: Iterable[Mapping[str, Any]], contents: Mapping[str, bytes] | None = None
    ) -> int:
        """Seals and writes drafts at the end of the chain atomically; returns the count.

        ``contents`` (SHA-256 to canonical JSON bytes) are written in the same
        transaction; one already stored is kept as it is.
        """
        ...

    def finish_run(
        self, run_id: str, *, status: RunStatus, finished_at: str, summary: Mapping[str, Any]
    ) -> None:
        """Marks a run finished or interrupted and records its summary and row count."""
        ...

    def iter_rows(self, run_id: str | None = None) -> Iterator[StoredRow]:
        """Streams rows in seq order, optionally of one run only."""
        ...

    def iter_rows_by_case(
        self, run_id: str, *, page: int = 2_000, start: str | None = None
    ) -> Iterator[StoredRow]:
        """Streams one run's rows ordered by ``(case_id, seq)``, case ids by code point
        (as Python orders strings), reading ``page`` rows at a time, from case id
        ``start`` on (every case when ``None``)."""
        ...

    def run(self, run_id: str) -> RunRecord | None:
        """Returns one run, or ``None``."""
        ...

    def runs(self) -> list[RunRecord]:
        """Returns every run, oldest first."""
        ...

    def last_run(self) -> RunRecord | None:
        """Returns the most recently started run, or ``None`` for an empty store."""
        ...

    def recent_runs(
        self, *, contract_id: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[RunRecord]:
        """Returns runs newest first (as ``last_run`` orders them), of one contract if
        ``contract_id`` is given: at most ``limit`` of them, after skipping ``offset``."""
        ...

    def run_written(self, run_id: str) -> bool:
        """Whether a process (this one included) is writing the run now: holds its
        writer lock. A run recorded as running that nobody writes was stopped without
        recording its end (a killed process) and can be resumed."""
        ...

    def contract(self, sha256: str) -> StoredContract | None:
        """Returns the contract source recorded under this hash, or ``None``."""
        ...

    def content(self, sha256: str) -> str | None:
        """Returns the case content stored under this hash, or ``None``."""
        ...

    def iter_contents(self) -> Iterator[tuple[str, str]]:
        """Streams every stored content as ``(sha256, body)``."""
        ...

    def iter_contracts(self) -> Iterator[StoredContract]:
        """Streams every stored contract source."""
        ...

    def iter_seals(self) -> Iterator[StoredSeal]:
        """Streams the seal chain in order (see ``verifier.gaps.seals``)."""
        ...

    def head(self) -> StoredSeal | None:
        """The last seal, whose hash is the store's head; ``None`` when none yet."""
        ...

    def run_seal(self, run_id: str) -> StoredSeal | None:
        """A run's last ``begin`` or ``end`` seal: once it ended, the head right after it."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """A block in which every read of this store sees one snapshot of it: what was
        committed when the block began, whatever other processes write meanwhile (an
        audit must not mistake a run being written for damage). Re-entrant; the
        store is for reading inside it."""
        ...

    def delete_contents(self, shas: Iterable[str], *, runs: Sequence[str] = ()) -> int:
        """Deletes stored contents (purging); rows and the chain are untouched, and a
        ``purge`` seal records which contents, of which ``runs``, and when.

        Returns:
            How many contents were deleted (a hash not stored is skipped).
        """
        ...

    def duplicate_row_ids(self, run_id: str | None = None) -> list[DuplicateRowId]:
        """Returns row ids held by more than one row (touching ``run_id`` if given)."""
        ...

    def close(self) -> None:
        """Releases the store; further calls fail."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def open_store(target: str) -> GapStore:
    """Opens (creating if needed) the store a target names.

    Args:
        target: A file path (``.verifier/gaps.db``), ``sqlite:///relative/path.db`` or
            ``sqlite:////absolute/path.db`` (the SQLAlchemy convention), or a
            ``postgresql://`` URL.

    Raises:
        StoreError: The target names no usable store; the message is one line and
            never repeats a URL, which may hold a password.
    """
    # Each backend is imported when named: the PostgreSQL one needs psycopg, an
    # optional dependency, and a command that reads a SQLite file should not pay for it.
    from verifier.gaps.sqlite.store import SqliteStore

    scheme, sep, rest = target.partition("://")
    if not sep:
        return SqliteStore(target)
    scheme = scheme.lower()
    if scheme == "sqlite":
        if not rest.startswith("/") or rest == "/":
            raise StoreError("a SQLite store URL looks like sqlite:///path/to/gaps.db")
        return SqliteStore(rest[1:])
    if is_postgres_url(target):
        from verifier.gaps.postgres.store import PostgresStore

        return PostgresStore(target)
    raise StoreError(
        f"unknown store scheme {scheme!r}: use a file path, sqlite:///path or postgresql://..."
    )


def is_postgres_url(target: str) -> bool:
    """Whether a store target names a PostgreSQL store (``postgresql://``, ``postgres://``
    or ``postgresql+driver://``)."""
    scheme, sep, _ = target.partition("://")
    scheme = scheme.lower()
    return bool(sep) and (scheme in ("postgresql", "postgres") or scheme.startswith("postgresql+"))


def redacted_target(target: str) -> str:
    """A store target fit for messages: a URL loses its password and query string."""
    if not is_postgres_url(target):
        return target
    scheme, _, rest = target.partition("://")
    netloc, slash, path = rest.partition("?")[0].partition("/")
    userinfo, at, host = netloc.rpartition("@")
    return f"{scheme}://{userinfo.partition(':')[0]}{at}{host}{slash}{path}"


def resolve_run_id(store: GapStore, text: str, *, contract_id: str | None = None) -> str:
    """The run id ``text`` names in ``store``: itself, or the run a reference points at
    (``last``, ``last~N``: see ``verifier.gaps.run_refs``).

    Args:
        store: The store the reference counts back in.
        text: A run id, ``last`` or ``last~N``.
        contract_id: Count only the runs of this contract.

    Raises:
        StoreError: ``text`` is a malformed reference, or the store holds fewer runs
            than it reaches back; the message is one line.
    """
    try:
        back = parse_reference(text)
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    if back is None:
        return text
    found = store.recent_runs(contract_id=contract_id, limit=1, offset=back)
    if found:
        return found[0].run_id
    stored = len(store.recent_runs(contract_id=contract_id))
    of = f" of contract {contract_id}" if contract_id is not None else ""
    if not stored:
        raise StoreError(f"{text}: no runs{of} stored in {store.location}")
    runs = "run" if stored == 1 else "runs"
    raise StoreError(f"{text}: only {stored} {runs}{of} stored in {store.location}")
