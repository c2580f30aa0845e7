"""What the SQLite and PostgreSQL gap stores share: their SQL, written once per dialect.

Both stores keep the same tables and answer the same reads; only how they connect,
lock, stream and bulk-insert differs. ``Dialect`` holds what the SQL itself differs
in (the parameter marker, the column ordering runs started at the same instant, how a
table's columns are listed), and ``SqlStore`` answers every read and writes the run
record through two hooks a backend provides: ``_read`` (a short query, in the open
snapshot if any) and ``_stream`` (a long one, a batch at a time). Statements are
written with ``?`` placeholders and ``Dialect.sql`` turns them into the backend's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Final

import orjson

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier._internal.closing import Closing
from verifier.gaps.chain import SealedRow
from verifier.gaps.records import (
    RunRecord,
    RunStatus,
    StoredContract,
    StoredRow,
    StoreError,
    check_run_id,
    record_run_end,
)
from verifier.gaps.row_fields import STORE_COLUMN_LIST
from verifier.gaps.seals import (
    HEAD_QUERY,
    RUN_SEAL_QUERY,
    SEAL_COLUMNS,
    StoredSeal,
    append_seal,
    begin_payload,
)

__all__ = [
    "POSTGRES",
    "RUN_COLUMNS",
    "SQLITE",
    "Dialect",
    "Execute",
    "SqlStore",
    "check_running",
    "json_object",
    "run_record",
]

Execute = Callable[[str, tuple[Any, ...]], Any]
"""A transaction's ``execute`` (a connection's or a cursor's): returns a cursor."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one database's SQL differs from the other's, for the statements both run.

    Attributes:
        name: ``sqlite`` or ``postgres``.
        mark: The parameter marker (``?`` or ``%s``).
        run_order: The column that orders runs started at the same instant, in the
            order they began (SQLite's ``rowid``, PostgreSQL's ``ordinal``).
        no_limit: What ``LIMIT`` takes as no limit (SQLite: a negative number).
        contents_order: The order ``iter_contents`` streams contents in.
        columns_query: A table's column names in order (one parameter: the table).
        has_table_query: Whether a table exists (one parameter: the table).
        by_code_point: What makes a text column order by code point, as Python
            orders strings (SQLite's default; PostgreSQL's ``C`` collation).
    """

    name: str
    mark: str
    run_order: str
    no_limit: int | None
    contents_order: str
    columns_query: str
    has_table_query: str
    by_code_point: str = ""

    def sql(self, statement: str) -> str:
        """``statement`` (``?`` placeholders) with this dialect's marker."""
        return statement if self.mark == "?" else statement.replace("?", self.mark)


SQLITE: Final = Dialect(
    name="sqlite",
    mark="?",
    run_order="rowid",
    no_limit=-1,
    contents_order="rowid",  # the order stored
    columns_query="SELECT name FROM pragma_table_info(?) ORDER BY cid",
    has_table_query="SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?",
)
POSTGRES: Final = Dialect(
    name="postgres",
    mark="%s",
    run_order="ordinal",
    no_limit=None,
    contents_order="sha256",
    columns_query=(
        "SELECT column_name FROM information_schema.columns WHERE table_schema ="
        " current_schema() AND table_name = %s ORDER BY ordinal_position"
    ),
    has_table_query="SELECT to_regclass(%s) IS NOT NULL",
    by_code_point=' COLLATE "C"',
)

RUN_COLUMNS: Final = (
    "run_id, contract_id, contract_version, contract_sha256, started_at, finished_at, "
    "status, options, summary"
)
_INSERT_CONTRACT: Final = (
    "INSERT INTO contracts (sha256, path, source) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING"
)
_INSERT_RUN: Final = (
    f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, 'running', ?, '{{}}')"
)
_BEGUN: Final = (
    "SELECT r.contract_id, r.contract_version, r.started_at, r.options, c.path"
    " FROM runs r LEFT JOIN contracts c ON c.sha256 = r.contract_sha256 WHERE r.run_id = ?"
)


@dataclass(frozen=True, slots=True)
class RunBegin:
    """What ``begin_run`` records: the run, its contract and its options as JSON."""

    run_id: str
    contract_id: str
    contract_version: int
    contract_sha256: str
    contract_path: str
    contract_source: str
    started_at: str
    options_json: str


class SqlStore(Closing):
    """The reads and run-record writes both SQL stores share (see the module's docstring).

    A backend sets ``dialect`` and provides ``_read``, ``_stream``, ``_writing_run``
    (the run's writer lock and one write transaction) and ``_run_released``; it may
    refine how a run begins and ends through ``_recorded_options``, ``_resuming``,
    ``_begun`` and ``_end``.
    """

    dialect: ClassVar[Dialect]

    @property
    def placeholder(self) -> str:
        """The parameter marker of ``select``'s queries."""
        return self.dialect.mark

    def _read(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """A short read's rows; inside ``snapshot()``, in its snapshot."""
        raise NotImplementedError

    def _stream(self, query: str) -> Iterator[tuple[Any, ...]]:
        """A long read's rows, a batch at a time; inside ``snapshot()``, its."""
        raise NotImplementedError

    def _writing_run(self, run_id: str) -> AbstractContextManager[Any]:
        """The run's writer lock (kept past the block: ``_run_released`` lets it go),
        then one write transaction holding the chain lock; yields what executes in it."""
        raise NotImplementedError

    def _write(self) -> AbstractContextManager[Any]:
        """One write transaction holding the chain lock; yields what executes in it."""
        raise NotImplementedError

    def _run_released(self, run_id: str) -> None:
        """Lets the run's writer lock go, once its end is recorded."""
        raise NotImplementedError

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
        """Records a run as running, with the contract source it checks.

        Beginning a run that exists and has not finished resumes it (status back to
        running; its start time and options are kept). The run has one writer, this
        store, from here until it ends or the store closes.

        Raises:
            ValueError: ``contract_source`` does not hash to ``contract_sha256``, so no
                row's check could be re-run from the stored source.
            StoreError: The run exists with another contract, or has finished, or
                another process is writing it.
        """
        if sha256_hex(contract_source) != contract_sha256:
            raise ValueError(
                f"contract source of {contract_path} does not hash to {contract_sha256}; "
                "pass the file's exact text (read bytes, decode UTF-8, keep line endings)"
            )
        check_run_id(run_id)
        options_json = canonical_json(self._recorded_options(options)).decode("utf-8")
        begin = RunBegin(
            run_id,
            contract_id,
            contract_version,
            contract_sha256,
            contract_path,
            contract_source,
            started_at,
            options_json,
        )
        # One writer per run: taken before anything is written, so a second process
        # resuming a run that is still going is refused without touching it.
        with self._writing_run(run_id) as writer:
            self._record_begin(writer.execute, begin)
            self._begun(writer.execute, run_id, started_at)

    def _record_begin(self, execute: Execute, begin: RunBegin) -> None:
        """Records the run (and its contract) inside the write transaction, and seals it."""
        sql = self.dialect.sql
        run_id, sha = begin.run_id, begin.contract_sha256
        execute(sql(_INSERT_CONTRACT), (sha, begin.contract_path, begin.contract_source))
        existing = execute(
            sql("SELECT contract_sha256, status, options FROM runs WHERE run_id = ?"), (run_id,)
        ).fetchone()
        if existing is None:
            run = (run_id, begin.contract_id, begin.contract_version, sha, begin.started_at)
            execute(sql(_INSERT_RUN), (*run, begin.options_json))
        elif existing[0] != sha:
            raise StoreError(f"run {run_id} already exists with another contract")
        elif existing[1] == "finished":
            raise StoreError(f"run {run_id} has already finished")
        else:
            self._resuming(run_id, existing[2])
            execute(
                sql("UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ?"),
                (run_id,),
            )
        begun = execute(sql(_BEGUN), (run_id,)).fetchone()
        append_seal(execute, self.dialect.mark, "begin", run_id, begun_payload(sha, begun))

    def _recorded_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options a run records (``options`` as given, here)."""
        return dict(options)

    def _resuming(self, run_id: str, options_json: str) -> None:
        """Refuses to resume a run this store may not write (none refused, here)."""

    def _begun(self, execute: Execute, run_id: str, started_at: str) -> None:
        """What else a run's beginning records, in its transaction (nothing, here)."""

    def finish_run(
        self, run_id: str, *, status: RunStatus, finished_at: str, summary: Mapping[str, Any]
    ) -> None:
        """Ends a run, recording its summary plus its row count and last row.

        The ``chain`` key of the stored summary (``rows``, ``last_seq``,
        ``last_hash``) is written by the store, replacing any the caller passed: it
        is what lets the audit notice rows deleted from the end of the chain.

        Raises:
            ValueError: ``status`` is not ``finished`` or ``interrupted``.
            StoreError: The run has not begun.
        """
        end = {"status": status, "finished_at": finished_at, "summary": summary}
        with self._write() as writer:
            self._end(writer.execute, run_id, end)
        self._run_released(run_id)

    def _end(self, execute: Execute, run_id: str, end: dict[str, Any]) -> None:
        """Records a run's end (``finish_run``'s keywords) inside the write transaction."""
        record_run_end(execute, self.dialect.mark, run_id, **end)

    def iter_rows_by_case(
        self, run_id: str, *, page: int = 2_000, start: str | None = None
    ) -> Iterator[StoredRow]:
        """Streams one run's rows ordered by ``(case_id, seq)``, ``case_id`` by code
        point, ``page`` rows a query, from case id ``start`` on (every case when
        ``None``): each page resumes after the last row of the one before (keyset
        pagination through the run's case index, no ``OFFSET``), so no cursor stays
        open between pages and the reader holds one page at a time."""
        case = f"case_id{self.dialect.by_code_point}"
        first = f"SELECT {STORE_COLUMN_LIST} FROM rows WHERE run_id = ?"
        order = f"ORDER BY {case}, seq LIMIT ?"
        make = partial(tuple.__new__, SealedRow)  # SealedRow._make, minus a check
        if start is None:
            rows = self._read(self.dialect.sql(f"{first} {order}"), (run_id, page))
        else:
            query = self.dialect.sql(f"{first} AND {case} >= ? {order}")
            rows = self._read(query, (run_id, start, page))
        after = self.dialect.sql(f"{first} AND ({case}, seq) > (?, ?) {order}")
        while rows:
            yield from map(make, rows)
            if len(rows) < page:
                return
            last = make(rows[-1])
            rows = self._read(after, (run_id, last.case_id, last.seq, page))

    def run(self, run_id: str) -> RunRecord | None:
        """Returns one run, or ``None``."""
        found = self._runs("WHERE run_id = ?", (run_id,))
        return found[0] if found else None

    def runs(self) -> list[RunRecord]:
        """Returns every run, oldest first."""
        return self._runs(f"ORDER BY started_at, {self.dialect.run_order}", ())

    def last_run(self) -> RunRecord | None:
        """Returns the most recently started run, or ``None`` for an empty store."""
        order = self.dialect.run_order
        found = self._runs(f"ORDER BY started_at DESC, {order} DESC LIMIT 1", ())
        return found[0] if found else None

    def recent_runs(
        self, *, contract_id: str | None = None, limit: int | None = None, offset: int = 0
    ) -> list[RunRecord]:
        """Returns runs newest first, of one contract if given, ``limit`` after ``offset``."""
        where, params = (
            ("", ()) if contract_id is None else ("WHERE contract_id = ?", (contract_id,))
        )
        page = (self.dialect.no_limit if limit is None else limit, offset)
        order = self.dialect.run_order
        return self._runs(
            f"{where} ORDER BY started_at DESC, {order} DESC LIMIT ? OFFSET ?", (*params, *page)
        )

    def _runs(self, clause: str, params: tuple[Any, ...]) -> list[RunRecord]:
        found = self._read(self.dialect.sql(f"SELECT {RUN_COLUMNS} FROM runs {clause}"), params)
        return [run_record(row) for row in found]

    def contract(self, sha256: str) -> StoredContract | None:
        """Returns the contract source recorded under this hash, or ``None``."""
        query = self.dialect.sql("SELECT sha256, path, source FROM contracts WHERE sha256 = ?")
        found = self._read(query, (sha256,))
        return StoredContract(*found[0]) if found else None

    def iter_contents(self) -> Iterator[tuple[str, str]]:
        """Streams every stored content as ``(sha256, body)`` (SQLite: in the order
        stored; PostgreSQL: in hash order)."""
        order = self.dialect.contents_order
        yield from self._stream(f"SELECT sha256, body FROM contents ORDER BY {order}")

    def iter_contracts(self) -> Iterator[StoredContract]:
        """Streams every stored contract source, in hash order."""
        query = "SELECT sha256, path, source FROM contracts ORDER BY sha256"
        for sha, path, source in self._stream(query):
            yield StoredContract(sha, path, source)

    def iter_seals(self) -> Iterator[StoredSeal]:
        """Streams the seal chain in order."""
        query = f"SELECT {SEAL_COLUMNS} FROM seals ORDER BY n"
        yield from map(StoredSeal._make, self._stream(query))

    def head(self) -> StoredSeal | None:
        """The last seal, whose hash is the store's head; ``None`` when none yet."""
        return StoredSeal(*found[0]) if (found := self._read(HEAD_QUERY, ())) else None

    def run_seal(self, run_id: str) -> StoredSeal | None:
        """A run's last ``begin`` or ``end`` seal: once it ended, the head right after it."""
        found = self._read(self.dialect.sql(RUN_SEAL_QUERY), (run_id,))
        return StoredSeal(*found[0]) if found else None

    def table_columns(self, name: str) -> tuple[str, ...]:
        """The columns of a table of the store's database (none: no such table), as the
        audit reads the tables kept beside the rows; inside ``snapshot()``, its."""
        return tuple(str(row[0]) for row in self._read(self.dialect.columns_query, (name,)))

    def select(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Runs one read query (``placeholder`` markers) and returns its rows: how
        ``verifier.analyses.browse`` reads pages. Inside ``snapshot()`` it sees its
        snapshot."""
        return self._read(query, params)


def check_running(run_ids: Iterable[Any], status: Mapping[Any, Any]) -> None:
    """Refuses to append rows to a run that is not running.

    Args:
        run_ids: The runs of the drafts.
        status: Each stored run's status (a run missing has not begun).

    Raises:
        StoreError: A run has not begun or has ended.
    """
    for run_id in run_ids:
        found = status.get(run_id)
        if found != "running":
            state = "has not begun" if found is None else f"is {found}"
            raise StoreError(f"cannot append rows: run {run_id} {state}")


def begun_payload(contract_sha256: str, begun: tuple[Any, ...]) -> dict[str, Any]:
    """The ``begin`` seal's payload from the run record as it now stands."""
    contract_id, version, started_at, options, path = begun
    return begin_payload(
        contract_id=contract_id,
        contract_version=version,
        contract_sha256=contract_sha256,
        started_at=started_at,
        options=json_object(options),
        contract_path=path,
    )


def run_record(row: tuple[Any, ...]) -> RunRecord:
    """A run record from a ``SELECT {RUN_COLUMNS}`` row."""
    run_id, contract_id, version, sha256, started, finished, status, options, summary = row
    return RunRecord(
        run_id,
        contract_id,
        version,
        sha256,
        started,
        finished,
        status,
        json_object(options),
        json_object(summary),
    )


def json_object(text: Any) -> dict[str, Any]:
    """A JSON column's object; ``{}`` for one that is unreadable or not an object."""
    # An options or summary column edited into something unreadable reads as empty;
    # the audit then reports an ended run without its recorded row count.
    try:
        value = orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}
