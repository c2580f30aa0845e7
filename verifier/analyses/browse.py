"""Browsing a store a page at a time: runs newest first, a run's results, a case.

What a results viewer reads. Every page is one or two range reads of an index (the
browsing indexes of schema version 4), so the first page of a run of a million results
comes as fast as a small run's, and the run list never reads a row.

A run's results page by ``seq`` (keyset pagination: ``after`` is the last seq of the
previous page). Filters by claim or by status each have an index. A text search, or
claim and status together, is answered by scanning the run's rows in seq order; to keep
a page bounded, such a page looks at most ``SCAN_WINDOW`` seqs past ``after``
(``TEXT_SCAN_WINDOW`` for a text search, whose rows are read whole). A page
that reached the end of its window before filling holds fewer results than asked (or
none) with ``has_more`` set and ``next_after`` where the next page goes on: the cost of
a search is paid a window at a time, each page at most a window's rows read and, for
a text search, the reason parsed out of each row whose body holds the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeGuard, TypeVar

import orjson

from verifier.analyses import _postgres_browse, _sqlite_browse
from verifier.gaps.postgres.store import PostgresStore
from verifier.gaps.records import CHAIN_SUMMARY_KEY, RunRecord, StoreError
from verifier.gaps.sql import RUN_COLUMNS, run_record
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import GapStore
from verifier.judge_summary import judges_were_off

T = TypeVar("T")

MAX_LIMIT = 1000
"""The most items one page may ask for."""

SCAN_WINDOW = 50_000
"""How many seqs past ``after`` a page answered by a scan looks at, at most."""

TEXT_SCAN_WINDOW = 20_000
"""How many seqs past ``after`` a page of a text search looks at, at most: each row
it looks at is read whole (its body holds the reason), where the other scans read
little more than an index."""

COUNT_UP_TO = 50_000
"""Results of a run up to which ``count_results`` counts what no index answers."""

_ROW_COLUMNS = "seq, run_id, case_id, claim_id, kind, status, score, body"


@dataclass(frozen=True)
class RunListing:
    """One run in the list, from the runs table and its summary (no row is read).

    The counts are ``None`` when the summary does not hold them (a run still going,
    or stopped before recording its end). ``status`` is the stored one: ``running``,
    ``finished`` or ``interrupted`` (``GapStore.run_written`` tells a running run that
    nobody writes any more). ``judges_off``: the run ran with its judges off, so its
    judge claims were not checked.
    """

    run_id: str
    contract_id: str
    contract_version: int
    started_at: str
    finished_at: str | None
    status: str
    total_cases: int | None
    passed_cases: int | None
    pass_rate: float | None
    judge_calls: int | None
    cost_usd: float | None
    judges_off: bool = False


@dataclass(frozen=True)
class ResultRow:
    """One gap row, parsed: a claim's result on one case."""

    seq: int
    run_id: str
    case_id: str
    claim_id: str
    kind: str
    status: str
    score: float | None
    reason: str
    evidence: dict[str, Any]
    content_sha256: str | None


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing.

    Attributes:
        items: What the page holds, in the listing's order.
        has_more: Whether a next page may hold more.
        next_after: Where the next page starts, ``None`` without one: the ``after`` of
            ``run_results`` (a seq), the ``offset`` of ``list_runs``.
        total: How many items the whole listing holds, ``None`` when counting would
            read every row.
    """

    items: list[T]
    has_more: bool
    next_after: int | None
    total: int | None


def list_runs(
    store: GapStore,
    *,
    contract: str | None = None,
    status: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[RunListing]:
    """Lists runs newest first (as ``GapStore.recent_runs`` orders them), counted.

    Args:
        store: The store to read.
        contract: Only runs of this contract id.
        status: Only runs whose stored status is this (``running``, ``finished``,
            ``interrupted``).
        offset: How many runs of the listing to skip.
        limit: How many runs the page holds at most (1 to ``MAX_LIMIT``).

    Raises:
        ValueError: ``offset`` or ``limit`` is out of range.
        StoreError: The store cannot be read.
    """
    _check_limit(limit)
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")
    backend = _backend(store)
    where, params = _where((("contract_id", contract), ("status", status)))
    (total,) = backend.select(store, f"SELECT COUNT(*) FROM runs{where}", params)[0]
    found = backend.select(
        store,
        f"SELECT {RUN_COLUMNS} FROM runs{where} ORDER BY {backend.RUN_ORDER} LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    items = [listing(run_record(row)) for row in found]
    more = offset + len(items) < total
    return Page(items, more, offset + len(items) if more else None, int(total))


def contract_ids(store: GapStore) -> list[str]:
    """The ids of the contracts the store holds runs of, sorted."""
    backend = _backend(store)
    found = backend.select(store, "SELECT DISTINCT contract_id FROM runs ORDER BY contract_id", ())
    return [str(contract_id) for (contract_id,) in found]


def run_results(
    store: GapStore,
    run_id: str,
    *,
    claim: str | None = None,
    status: str | None = None,
    text: str | None = None,
    failing: bool | None = None,
    after: int | None = None,
    limit: int = 50,
) -> Page[ResultRow]:
    """One page of a run's results in seq order, optionally filtered.

    Args:
        store: The store to read.
        run_id: The run; an unknown one gives an empty page (``total`` 0).
        claim: Only results of this claim id.
        status: Only results of this status (``pass``, ``fail``, ``error``, ``skipped``).
        text: Only results whose case id, claim id or reason holds this text, ignoring
            case (SQLite folds ASCII letters only). Empty or blank text filters nothing.
        failing: ``True``: only ``fail`` and ``error`` results; ``False``: only the
            others; ``None``: any (a page of the failing ones first, then of the
            others, lists failures first).
        after: The ``next_after`` of the previous page; ``None`` for the first.
        limit: How many results the page holds at most (1 to ``MAX_LIMIT``).

    Returns:
        The page. ``total`` is the run's result count for an unfiltered listing of a
        run that has ended, else ``None`` (``count_results`` counts a filtered one). A
        page answered by a scan (text, ``failing``, or claim and status together) may
        hold fewer than ``limit`` results with ``has_more`` set: see the module's
        docstring.

    Raises:
        ValueError: ``limit`` is out of range.
        StoreError: The store cannot be read.
    """
    _check_limit(limit)
    backend = _backend(store)
    record = store.run(run_id)
    if record is None:
        return Page([], False, None, 0)
    needle = text.strip().lower() if text is not None else ""
    start = 0 if after is None else after
    where, params = _result_filter(backend, run_id, claim, status, failing, needle)
    where += " AND seq > ?"
    params += (start,)
    scanned = bool(needle) or failing is not None or (claim is not None and status is not None)
    if scanned:
        where += " AND seq <= ?"
        params += (start + scan_window(needle),)
    found = backend.select(
        store, f"SELECT {_ROW_COLUMNS} FROM rows{where} ORDER BY seq LIMIT ?", (*params, limit + 1)
    )
    items = [_result(row) for row in found[:limit]]
    filtered = claim is not None or status is not None or failing is not None or bool(needle)
    total = None if filtered else _row_count(record)
    if len(found) > limit:
        return Page(items, True, items[-1].seq, total)
    if not scanned:
        return Page(items, False, None, total)
    window_end = start + scan_window(needle)
    beyond = backend.select(
        store,
        "SELECT seq FROM rows WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT 1",
        (run_id, window_end),
    )
    return Page(items, bool(beyond), window_end if beyond else None, total)


def count_results(
    store: GapStore,
    run_id: str,
    *,
    claim: str | None = None,
    status: str | None = None,
    text: str | None = None,
    failing: bool | None = None,
) -> int | None:
    """How many of a run's results ``run_results`` lists with these filters, up to
    ``COUNT_UP_TO + 1``: a larger count is not read to its end.

    Counted through an index when one answers it (one filter of claim, status or
    ``failing``), by reading the rows of a small run (``COUNT_UP_TO`` results at most);
    ``None`` for a larger run, rather than read its every row for a number.

    Raises:
        StoreError: The store cannot be read.
    """
    backend = _backend(store)
    record = store.run(run_id)
    if record is None:
        return 0
    needle = text.strip().lower() if text is not None else ""
    given = [f for f in (claim, status, failing) if f is not None]
    if not given and not needle:
        rows = _row_count(record)
        if rows is not None:
            return rows
    elif needle or len(given) > 1:
        beyond = backend.select(
            store,
            "SELECT seq FROM rows WHERE run_id = ? ORDER BY seq LIMIT 1 OFFSET ?",
            (run_id, COUNT_UP_TO),
        )
        if beyond:
            return None
    where, params = _result_filter(backend, run_id, claim, status, failing, needle)
    (count,) = backend.select(
        store,
        f"SELECT COUNT(*) FROM (SELECT 1 FROM rows{where} LIMIT ?) AS counted",
        (*params, COUNT_UP_TO + 1),
    )[0]
    return int(count)


def _result_filter(
    backend: _Backend,
    run_id: str,
    claim: str | None,
    status: str | None,
    failing: bool | None,
    needle: str,
) -> tuple[str, tuple[Any, ...]]:
    """`` WHERE ...`` of the run's results that these filters keep."""
    where, params = _where((("run_id", run_id), ("claim_id", claim), ("status", status)))
    if failing is not None:
        where += f" AND status {'' if failing else 'NOT '}IN ('fail', 'error')"
    if needle:
        if _written_as_is(needle):
            # The body holds all three fields, so a row whose body lacks the text is
            # passed over first, without its fields lower-cased or its JSON parsed:
            # most rows of a search end here (SQLite tests the terms in this order).
            body, param = backend.body_holds(needle)
            where += " AND " + body
            params += (param,)
        fields = ("case_id", "claim_id", backend.REASON)
        where += " AND (" + " OR ".join(backend.contains(field) for field in fields) + ")"
        params += (needle, needle, needle)
    return where, params


def case_results(store: GapStore, run_id: str, case_id: str) -> list[ResultRow]:
    """Every result of one case in one run, in seq order (empty when there is none)."""
    backend = _backend(store)
    found = backend.select(
        store,
        f"SELECT {_ROW_COLUMNS} FROM rows WHERE run_id = ? AND case_id = ? ORDER BY seq",
        (run_id, case_id),
    )
    return [_result(row) for row in found]


def case_in_runs(
    store: GapStore, contract_id: str, case_id: str, *, limit: int = 20
) -> list[RunListing]:
    """The runs of a contract holding results of this case id, newest first.

    The run the caller shows is among them: leave it out to link to the others.

    Raises:
        ValueError: ``limit`` is out of range.
    """
    _check_limit(limit)
    backend = _backend(store)
    found = backend.select(
        store,
        f"SELECT {RUN_COLUMNS} FROM runs WHERE contract_id = ? AND EXISTS"
        " (SELECT 1 FROM rows WHERE rows.run_id = runs.run_id AND rows.case_id = ?)"
        f" ORDER BY {backend.RUN_ORDER} LIMIT ?",
        (contract_id, case_id, limit),
    )
    return [listing(run_record(row)) for row in found]


def listing(record: RunRecord) -> RunListing:
    """A run as the list shows it, from its record and the summary stored at its end."""
    summary = record.summary
    total, passed = _count(summary.get("total_cases")), _count(summary.get("passed_cases"))
    usage = summary.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    cost = usage.get("cost_usd")
    return RunListing(
        run_id=record.run_id,
        contract_id=record.contract_id,
        contract_version=record.contract_version,
        started_at=record.started_at,
        finished_at=record.finished_at,
        status=record.status,
        total_cases=total,
        passed_cases=passed,
        pass_rate=passed / total if total and passed is not None else None,
        judge_calls=_count(usage.get("calls")),
        cost_usd=float(cost) if _is_number(cost) else None,
        judges_off=judges_were_off(record.options, summary),
    )


def scan_window(needle: str) -> int:
    """How many seqs one page of a scan looks at: ``TEXT_SCAN_WINDOW`` when it searches
    for ``needle``, else ``SCAN_WINDOW`` (the run page and the grid both ask this)."""
    return TEXT_SCAN_WINDOW if needle else SCAN_WINDOW


def cost_known(runs: Iterable[RunListing]) -> bool:
    """Whether any of ``runs`` records what its judges cost (``usage.cost_usd`` in its
    summary): every page that shows cost asks this, and shows no cost column when no
    run it lists knows one, rather than a column of dashes."""
    return any(run.cost_usd is not None for run in runs)


class _Backend(Protocol):
    """The SQL one backend speaks: the module ``_sqlite_browse`` or ``_postgres_browse``."""

    RUN_ORDER: str

    def body_holds(self, needle: str) -> tuple[str, Any]: ...

    REASON: str

    def contains(self, column: str) -> str: ...

    def select(self, store: Any, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]: ...


def _backend(store: GapStore) -> _Backend:
    if isinstance(store, SqliteStore):
        return _sqlite_browse
    if isinstance(store, PostgresStore):
        return _postgres_browse
    raise StoreError(f"gap store {store.location}: browsing needs a SQLite or PostgreSQL store")


def _where(pairs: tuple[tuple[str, str | None], ...]) -> tuple[str, tuple[Any, ...]]:
    """`` WHERE a = ? AND ...`` over the pairs whose value is given."""
    given = [(column, value) for column, value in pairs if value is not None]
    if not given:
        return "", ()
    clause = " WHERE " + " AND ".join(f"{column} = ?" for column, _ in given)
    return clause, tuple(value for _, value in given)


def _result(row: tuple[Any, ...]) -> ResultRow:
    seq, run_id, case_id, claim_id, kind, status, score, body = row
    parsed = orjson.loads(body)
    evidence = parsed.get("evidence")
    content = parsed.get("content_sha256")
    return ResultRow(
        seq=int(seq),
        run_id=run_id,
        case_id=case_id,
        claim_id=claim_id,
        kind=kind,
        status=status,
        score=None if score is None else float(score),
        reason=str(parsed.get("reason", "")),
        evidence=evidence if isinstance(evidence, dict) else {},
        content_sha256=content if isinstance(content, str) else None,
    )


def _written_as_is(text: str) -> bool:
    """Whether canonical JSON writes ``text`` unescaped, so a body holds it verbatim."""
    return '"' not in text and "\\" not in text and all(char >= " " for char in text)


def _row_count(record: RunRecord) -> int | None:
    """The run's row count as recorded at its end (``None`` while it runs)."""
    if record.status == "running":
        return None
    chain = record.summary.get(CHAIN_SUMMARY_KEY)
    return _count(chain.get("rows")) if isinstance(chain, dict) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
