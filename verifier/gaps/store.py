"""What every gap store offers, and how a store is named on the command line.

A store keeps runs, the contracts they checked, and the hash-chained rows. It is
append-only: there is no API to update or delete a row. ``open_store`` turns a target
(a path, ``sqlite:///path`` or ``postgresql://...``) into a store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Protocol, Self, TypeAlias

from verifier.canonical import canonical_json
from verifier.errors import VerifierError
from verifier.gaps.chain import SealedRow
from verifier.gaps.seals import StoredSeal, append_seal, end_payload

RunStatus = Literal["running", "finished", "interrupted"]
RUN_STATUSES: frozenset[str] = frozenset({"running", "finished", "interrupted"})

CHAIN_SUMMARY_KEY = "chain"
"""Key of ``RunRecord.summary`` where ``finish_run`` records the run's row count and
last row. Only a count recorded at the end can reveal rows deleted from the end of a
chain: the remaining chain is still perfectly valid."""

StoredRow: TypeAlias = SealedRow
"""A row read back from a store: the same columns that were sealed and written."""


class StoreError(VerifierError):
    """A store that cannot be opened, read or written; the message is one line."""


@dataclass(frozen=True, slots=True)
class RunChainRecord:
    """What a finished or interrupted run recorded about its own rows."""

    rows: int
    last_seq: int | None
    last_hash: str | None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run as the store knows it.

    Attributes:
        options: The run's options as ``begin_run`` received them.
        summary: The run's totals as ``finish_run`` received them, plus the
            ``chain`` record (row count and last row) the store added.
    """

    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    started_at: str
    finished_at: str | None
    status: str
    options: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def chain_record(self) -> RunChainRecord | None:
        """The row count and last row recorded when the run ended, if well-formed."""
        raw = self.summary.get(CHAIN_SUMMARY_KEY)
        if not isinstance(raw, Mapping):
            return None
        rows, last_seq, last_hash = raw.get("rows"), raw.get("last_seq"), raw.get("last_hash")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            return None
        if not (last_seq is None or (isinstance(last_seq, int) and not isinstance(last_seq, bool))):
            return None
        if not (last_hash is None or isinstance(last_hash, str)):
            return None
        return RunChainRecord(rows, last_seq, last_hash)


@dataclass(frozen=True, slots=True)
class StoredContract:
    """The exact contract source a run checked, so any row's check can be re-run."""

    sha256: str
    path: str
    source: str


@dataclass(frozen=True, slots=True)
class DuplicateRowId:
    """A ``row_id`` held by more than one row, with the seqs that hold it."""

    row_id: str
    seqs: tuple[int, ...]


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

    def run(self, run_id: str) -> RunRecord | None:
        """Returns one run, or ``None``."""
        ...

    def runs(self) -> list[RunRecord]:
        """Returns every run, oldest first."""
        ...

    def last_run(self) -> RunRecord | None:
        """Returns the most recently started run, or ``None`` for an empty store."""
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

    def delete_contents(self, shas: Iterable[str]) -> int:
        """Deletes stored contents (purging); rows and the chain are untouched.

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
    from verifier.gaps.sqlite import SqliteStore

    scheme, sep, rest = target.partition("://")
    if not sep:
        return SqliteStore(target)
    scheme = scheme.lower()
    if scheme == "sqlite":
        if not rest.startswith("/") or rest == "/":
            raise StoreError("a SQLite store URL looks like sqlite:///path/to/gaps.db")
        return SqliteStore(rest[1:])
    if is_postgres_url(target):
        from verifier.gaps.postgres import PostgresStore

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


def record_run_end(
    execute: Callable[[str, tuple[Any, ...]], Any],
    placeholder: str,
    run_id: str,
    *,
    status: str,
    finished_at: str,
    summary: Mapping[str, Any],
) -> None:
    """Ends a run inside a store's write transaction (both stores' ``finish_run``).

    Records ``summary`` plus the ``chain`` key the store writes itself (the run's row
    count and last row, replacing any the caller passed), which lets the audit notice
    rows deleted from the end of the chain, and seals the end into the seal chain.

    Args:
        execute: The transaction's ``execute`` (a cursor's or a connection's).
        placeholder: The database's parameter marker (``?`` or ``%s``).

    Raises:
        ValueError: ``status`` is not ``finished`` or ``interrupted``.
        StoreError: The run has not begun.
    """
    if status not in ("finished", "interrupted"):
        raise ValueError(f"a run ends as finished or interrupted, not {status!r}")

    def query(sql: str, params: tuple[Any, ...]) -> Any:
        return execute(sql.replace("?", placeholder), params).fetchone()

    if query("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)) is None:
        raise StoreError(f"cannot finish run {run_id}: it has not begun")
    (rows,) = query("SELECT COUNT(*) FROM rows WHERE run_id = ?", (run_id,)) or (0,)
    last = query(
        "SELECT seq, row_hash FROM rows WHERE run_id = ? ORDER BY seq DESC LIMIT 1", (run_id,)
    )
    recorded = dict(summary)
    recorded[CHAIN_SUMMARY_KEY] = {
        "rows": rows,
        "last_seq": last[0] if last else None,
        "last_hash": last[1] if last else None,
    }
    execute(
        "UPDATE runs SET status = ?, finished_at = ?, summary = ? WHERE run_id = ?".replace(
            "?", placeholder
        ),
        (status, finished_at, canonical_json(recorded).decode("utf-8"), run_id),
    )
    append_seal(execute, placeholder, "end", run_id, end_payload(status, finished_at, recorded))
