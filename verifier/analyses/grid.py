"""A run's results as a grid: one line per case, its claims' results across, failing
cases first, a keyset page of cases at a time.

A page is found as ``browse.run_results`` finds one: range reads of the browsing
indexes, never the whole run. Cases come in two parts. First the failing cases (a
``fail`` or ``error`` result among the claims shown), each where its first failing
result stands in seq order; then the others, each where its first result stands. A
case is found from a "driver" row (the row that places it), its results are then read
through the ``(run_id, case_id)`` index, and a case already placed on an earlier page
(an earlier driver row of it) is passed over. Like a scanned results page, a part looks
at most ``browse.scan_window`` seqs past where its page starts: a page may hold fewer
cases than asked, with a ``next`` cursor where the next page goes on.

Filters: ``claim`` keeps that claim's column only; ``status`` keeps the cases with a
result of that status; ``text`` the cases with a result whose case id, claim id or
reason holds it (ignoring case, as ``run_results`` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from verifier.analyses.browse import (
    _ROW_COLUMNS,
    MAX_LIMIT,
    ResultRow,
    _Backend,
    _backend,
    _result,
    _result_filter,
    scan_window,
)
from verifier.gaps.store import GapStore

__all__ = ["FAILING", "GridCase", "GridCursor", "GridPage", "run_grid"]

FAILING: Final = ("fail", "error")
"""The statuses that make a case a failing one (listed first)."""

_CHUNK = 500
"""Driver rows read at a time while a page fills."""

_FAILED_ROW = "SELECT 1 FROM rows f WHERE f.run_id = rows.run_id AND f.case_id = rows.case_id"


@dataclass(frozen=True, slots=True)
class GridCase:
    """One line of the grid.

    Attributes:
        case_id: The case.
        failing: Whether a result shown on the line failed or could not be checked.
        results: Its results on the claims shown, in seq order.
    """

    case_id: str
    failing: bool
    results: list[ResultRow]


@dataclass(frozen=True, slots=True)
class GridCursor:
    """Where a page of the grid starts: in which part, after which driver row.

    Written ``f123`` (failing cases, after seq 123) or ``r123`` (the rest).
    """

    part: Literal["failing", "rest"]
    after: int

    def text(self) -> str:
        return f"{self.part[0]}{self.after}"

    @classmethod
    def parse(cls, text: str) -> GridCursor | None:
        """The cursor ``text`` writes, ``None`` for one it cannot be."""
        head, digits = text[:1], text[1:]
        if head not in ("f", "r") or not (digits.isascii() and digits.isdigit()):
            return None
        return cls("failing" if head == "f" else "rest", int(digits))


@dataclass(frozen=True, slots=True)
class GridPage:
    """One page of the grid.

    Attributes:
        cases: Its lines, failing cases first.
        next: Where the next page starts, ``None`` on the last page.
    """

    cases: list[GridCase]
    next: GridCursor | None


@dataclass(frozen=True)
class _Ask:
    store: GapStore
    backend: _Backend
    run_id: str
    claim: str | None
    status: str | None
    needle: str

    def driver(self, part: str) -> tuple[str, tuple[Any, ...]]:
        """The condition (after ``WHERE``) a row meets to place its case in ``part``."""
        failing = True if part == "failing" and self.status is None else None
        where, params = _result_filter(
            self.backend, self.run_id, self.claim, self.status, failing, self.needle
        )
        failed = _FAILED_ROW + " AND f.status IN ('fail', 'error')"
        if self.claim is not None:
            failed += " AND f.claim_id = rows.claim_id"
        if part == "rest":
            where += f" AND NOT EXISTS ({failed})"
        elif self.status is not None and self.status not in FAILING:
            where += f" AND EXISTS ({failed})"
        return where.removeprefix(" WHERE "), params

    def select(self, query: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self.backend.select(self.store, query, params)


def run_grid(
    store: GapStore,
    run_id: str,
    *,
    claim: str | None = None,
    status: str | None = None,
    text: str | None = None,
    at: GridCursor | None = None,
    limit: int = 25,
) -> GridPage:
    """One page of a run's grid: ``limit`` cases at most, failing cases first.

    Args:
        store: The store to read (SQLite or PostgreSQL).
        run_id: The run; an unknown one gives an empty page.
        claim: Only this claim's results (one column).
        status: Only cases with a result of this status.
        text: Only cases with a result whose case id, claim id or reason holds it.
        at: The ``next`` of the previous page; ``None`` for the first.
        limit: How many cases the page holds at most (1 to ``browse.MAX_LIMIT``).

    Raises:
        ValueError: ``limit`` is out of range.
        StoreError: The store cannot be read.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    needle = text.strip().lower() if text is not None else ""
    ask = _Ask(store, _backend(store), run_id, claim, status, needle)
    cursor: GridCursor | None = at or GridCursor("failing", 0)
    cases: list[GridCase] = []
    while cursor is not None and len(cases) < limit:
        if cursor.part == "rest" and status in FAILING:
            return GridPage(cases, None)
        found, following = _fill(ask, cursor, limit - len(cases))
        cases += found
        if following is not None and following.part == cursor.part:
            # The page is full, or its part's window ended: the next page goes on.
            return GridPage(cases, following)
        cursor = following
    return GridPage(cases, cursor)


def _fill(ask: _Ask, cursor: GridCursor, want: int) -> tuple[list[GridCase], GridCursor | None]:
    """Up to ``want`` cases of the cursor's part, and where the next page starts (the
    other part's start when this part is done, ``None`` after the last part)."""
    where, params = ask.driver(cursor.part)
    window_end = cursor.after + scan_window(ask.needle)
    after, seen, cases = cursor.after, set[str](), list[GridCase]()
    while True:
        found = ask.select(
            f"SELECT seq, case_id FROM rows WHERE {where} AND seq > ? AND seq <= ?"
            " ORDER BY seq LIMIT ?",
            (*params, after, window_end, _CHUNK),
        )
        for seq, case_id in found:
            if case_id in seen:
                continue
            seen.add(case_id)
            if _placed_before(ask, where, params, case_id, seq):
                continue
            cases.append(_case(ask, case_id))
            if len(cases) == want:
                return cases, GridCursor(cursor.part, int(seq))
        if len(found) < _CHUNK:
            break
        after = int(found[-1][0])
    beyond = ask.select(
        "SELECT seq FROM rows WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT 1",
        (ask.run_id, window_end),
    )
    if beyond:
        return cases, GridCursor(cursor.part, window_end)
    return cases, GridCursor("rest", 0) if cursor.part == "failing" else None


def _placed_before(ask: _Ask, where: str, params: tuple[Any, ...], case_id: str, seq: int) -> bool:
    """Whether the case has a driver row before ``seq`` (it was placed there)."""
    earlier = ask.select(
        f"SELECT 1 FROM rows WHERE {where} AND case_id = ? AND seq < ? LIMIT 1",
        (*params, case_id, seq),
    )
    return bool(earlier)


def _case(ask: _Ask, case_id: str) -> GridCase:
    where, params = "run_id = ? AND case_id = ?", [ask.run_id, case_id]
    if ask.claim is not None:
        where += " AND claim_id = ?"
        params.append(ask.claim)
    found = ask.select(f"SELECT {_ROW_COLUMNS} FROM rows WHERE {where} ORDER BY seq", tuple(params))
    results = [_result(row) for row in found]
    return GridCase(case_id, any(r.status in FAILING for r in results), results)
