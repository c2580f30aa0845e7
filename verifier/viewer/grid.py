"""The grid of a run: ``/view/runs/RUN/grid``.

One line per case, the run's claims across, each cell a result's status (and score)
with its reason as the cell's tooltip; failing cases first, a page of
``CASES_PER_PAGE`` cases at a time (``verifier.analyses.grid``), each line with a
preview of the case's output and a link to the case's page. Filtered by claim,
status and text like the run page; ``?against=RUN2`` marks the cells whose verdict
flipped between RUN2 and this run (passed in one, failed in the other: what
``verifier compare`` counts as discordant).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import orjson
from fastapi import APIRouter, Response

from verifier.analyses.browse import ResultRow, case_results, list_runs
from verifier.analyses.grid import GridCase, GridCursor, run_grid
from verifier.gaps.store import GapStore, RunRecord
from verifier.report._case_content import ContentReader
from verifier.report._claim_notes import claim_notes
from verifier.viewer._views import STATUSES, claim_lines, query
from verifier.viewer.frame import MissingPage, Viewer, stored_run

__all__ = ["CASES_PER_PAGE", "register"]

CASES_PER_PAGE: Final = 25
PREVIEW_CHARS: Final = 160
"""Characters of a case's output shown on its line."""
TOOLTIP_CHARS: Final = 400
"""Characters of a result's reason in its cell's tooltip."""


@dataclass(frozen=True, slots=True)
class GridCell:
    """One result as its cell shows it.

    Attributes:
        flip: ``regressed`` (passed in the other run, fails here), ``fixed`` (the
            other way) or ``None``.
    """

    status: str
    score: float | None
    reason: str
    flip: str | None


@dataclass(frozen=True, slots=True)
class GridLine:
    """One case as its line shows it: a cell per claim shown (``None``: no result)."""

    case_id: str
    failing: bool
    preview: str
    cells: list[GridCell | None]


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds the grid page to the viewer's ``router``."""

    @router.get("/runs/{run}/grid")
    def grid_page(
        run: str, claim: str = "", status: str = "", q: str = "", at: str = "", against: str = ""
    ) -> Response:
        """A run's cases as lines, its claims as columns, failing cases first."""
        if status and status not in STATUSES:
            return viewer.problem(400, f"status {status!r}: one of {', '.join(STATUSES)}")
        cursor = GridCursor.parse(at) if at else None
        if at and cursor is None:
            return viewer.problem(400, f"at {at!r}: not a page of the grid")
        filters = {"claim": claim, "status": status, "q": q, "against": against}
        with viewer.store() as store:
            try:
                record = stored_run(store, run)
                other = stored_run(store, against) if against else None
            except MissingPage as exc:
                return viewer.problem(404, str(exc))
            if other is not None:
                filters["against"] = other.run_id  # its links stay on that run
            context = _grid_context(store, record, other, filters, cursor)
        title = f"grid of run {record.run_id} ({record.contract_id})"
        return viewer.page("grid.html.j2", title, context)


def _grid_context(
    store: GapStore,
    record: RunRecord,
    other: RunRecord | None,
    filters: dict[str, str],
    cursor: GridCursor | None,
) -> dict[str, Any]:
    claim, status, q = filters["claim"], filters["status"], filters["q"]
    page = run_grid(
        store,
        record.run_id,
        claim=claim or None,
        status=status or None,
        text=q or None,
        at=cursor,
        limit=CASES_PER_PAGE,
    )
    notes = claim_notes(store, record)
    known = [c.claim_id for c in claim_lines(record.summary, notes)] or sorted(notes)
    columns = [claim] if claim else _columns(known, page.cases)
    contents = ContentReader(store)
    lines = [_line(store, case, columns, contents, other) for case in page.cases]
    runs = list_runs(store, contract=record.contract_id, limit=50).items
    return {
        "record": record,
        "against": other,
        "columns": columns,
        "claim_ids": known,
        "statuses": STATUSES,
        "filters": filters,
        "lines": lines,
        "previews": any(line.preview for line in lines),
        "other_runs": [r.run_id for r in runs if r.run_id != record.run_id],
        "first": query(**filters) if cursor is not None else None,
        "next": None if page.next is None else query(**filters, at=page.next.text()),
    }


def _columns(known: list[str], cases: list[GridCase]) -> list[str]:
    """The run's claims, then any claim a shown result has that the summary lacks."""
    extra = {r.claim_id: None for c in cases for r in c.results if r.claim_id not in known}
    return [*known, *extra]


def _line(
    store: GapStore,
    case: GridCase,
    columns: list[str],
    contents: ContentReader,
    other: RunRecord | None,
) -> GridLine:
    mine = _first_by_claim(case.results)
    theirs = _first_by_claim(case_results(store, other.run_id, case.case_id)) if other else {}
    cells: list[GridCell | None] = []
    for claim_id in columns:
        row = mine.get(claim_id)
        before = theirs.get(claim_id)
        cells.append(None if row is None else _cell(row, before.status if before else None))
    sha = case.results[0].content_sha256 if case.results else None
    return GridLine(case.case_id, case.failing, _preview(contents, sha), cells)


def _first_by_claim(rows: list[ResultRow]) -> dict[str, ResultRow]:
    """Each claim's first result (a repeated pair counts once, as compare pairs them)."""
    first: dict[str, ResultRow] = {}
    for row in rows:
        first.setdefault(row.claim_id, row)
    return first


def _cell(row: ResultRow, before: str | None) -> GridCell:
    flip = None
    if {before, row.status} == {"pass", "fail"}:
        flip = "regressed" if row.status == "fail" else "fixed"
    reason = row.reason if len(row.reason) <= TOOLTIP_CHARS else row.reason[:TOOLTIP_CHARS] + "…"
    return GridCell(row.status, row.score, reason, flip)


def _preview(contents: ContentReader, sha256: str | None) -> str:
    """The start of the case's output, or why there is none to show."""
    content = contents.read(sha256)
    if content.case is None:
        return ""
    output = content.case.get("output")
    if output is None:
        return ""
    text = output if isinstance(output, str) else orjson.dumps(output).decode()
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…"
