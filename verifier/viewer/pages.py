"""The viewer's pages of runs, of a run, of a run's judges and of a case.

- ``/view/runs``: the runs, newest first, filtered by contract and status, 50 a page,
  with a picker of two runs for ``/view/diff?a=RUN&b=RUN``.
- ``/view/runs/RUN``: the PASS/FAIL banner, each claim's pass rate with its 95% Wilson
  interval, the judges' triples (for a run of up to ``INLINE_JUDGES_UP_TO`` results;
  beyond, a link to the page of its judges), then its results filtered by claim,
  status and text, a keyset page at a time, each with its case's fields marked.
- ``/view/runs/RUN/judges``: the triples and noise of every judge claim (reads the run).
- ``/view/runs/RUN/cases/CASE``: the case's content, every result it got, and the same
  case in the contract's other runs; CASE is one path segment, percent-encoded
  (``frame.case_url``), and ``/view/runs/RUN/case?id=CASE`` shows the same page for
  the ids no segment can carry (``.`` and ``..``).

``RUN`` may be ``last`` or ``last~N``, as on the command line.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Query, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from verifier.analyses.browse import (
    COUNT_UP_TO,
    case_in_runs,
    case_results,
    contract_ids,
    cost_known,
    list_runs,
)
from verifier.findings_tally import findings_lines
from verifier.gaps.content import record_mode
from verifier.gaps.store import GapStore, RunRecord
from verifier.report._case_content import SHOWN_FIELDS, ContentReader
from verifier.report._claim_notes import claim_notes
from verifier.report._run_view import RunView, read_run
from verifier.report.case_view import FIELD_CHARS
from verifier.viewer._run_results import ORDERS, results_page
from verifier.viewer._views import (
    STATUSES,
    BackTrail,
    case_fields,
    claim_lines,
    query,
    results_in_summary,
    shown_result,
)
from verifier.viewer.frame import VIEW_PREFIX, MissingPage, Viewer, stored_run

__all__ = ["INLINE_JUDGES_UP_TO", "RESULTS_PER_PAGE", "RUNS_PER_PAGE", "register"]

RUNS_PER_PAGE: Final = 50
RESULTS_PER_PAGE: Final = 50
INLINE_JUDGES_UP_TO: Final = 5_000
"""Results of a run whose judges the run page shows itself (they are read from every
row); a larger run's page links to its judges' page instead."""
RUN_STATUSES: Final = ("running", "finished", "interrupted")


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds the runs, run, judges and case pages to the viewer's ``router``."""

    @router.get("/runs")
    def runs_page(
        contract: str = "", status: str = "", offset: int = Query(0, ge=0)
    ) -> HTMLResponse:
        """The stored runs, newest first, filtered by contract and status."""
        if status and status not in RUN_STATUSES:
            return viewer.problem(400, f"status {status!r}: one of {', '.join(RUN_STATUSES)}")
        with viewer.store() as store:
            page = list_runs(
                store,
                contract=contract or None,
                status=status or None,
                offset=offset,
                limit=RUNS_PER_PAGE,
            )
            contracts = contract_ids(store)
        filters = {"contract": contract, "status": status}
        before = max(0, offset - RUNS_PER_PAGE)
        context = {
            "page": page,
            "cost_known": cost_known(page.items),
            "contracts": contracts,
            "statuses": RUN_STATUSES,
            "filters": filters,
            "offset": offset,
            "previous": query(**filters, offset=before or None) if offset else None,
            "next": None if page.next_after is None else query(**filters, offset=page.next_after),
        }
        return viewer.page("runs.html.j2", "verifier runs", context)

    @router.get("/runs/{run}")
    def run_page(
        run: str,
        claim: str = "",
        status: str = "",
        q: str = "",
        order: str = "",
        part: str = "",
        after: int | None = Query(None, ge=0),
        back: str = "",
    ) -> Response:
        """One run: its verdict, each claim's pass rate, then its results."""
        if status and status not in STATUSES:
            return viewer.problem(400, f"status {status!r}: one of {', '.join(STATUSES)}")
        if order not in ORDERS:
            return viewer.problem(400, f"order {order!r}: run, or none for failures first")
        filters = {"claim": claim, "status": status, "q": q, "order": order}
        with viewer.store() as store:
            try:
                record = stored_run(store, run)
            except MissingPage as exc:
                return viewer.problem(404, str(exc))
            if record.run_id != run:
                return _canonical(f"runs/{record.run_id}", filters)
            trail = BackTrail.parse(back)
            context = _run_context(store, record, filters, part, after, trail)
        title = f"verifier run {record.run_id} ({record.contract_id})"
        return viewer.page("run.html.j2", title, context)

    @router.get("/runs/{run}/judges")
    def judges_page(run: str) -> HTMLResponse:
        """A run's judge claims, each with the stability triples that judged it."""
        with viewer.store() as store:
            try:
                record = stored_run(store, run)
            except MissingPage as exc:
                return viewer.problem(404, str(exc))
            judged = _judged(read_run(store, record, max_results=0, content_budget=0))
        context = {"record": record, "judged": judged}
        return viewer.page("judges.html.j2", f"judges of run {record.run_id}", context)

    @router.get("/runs/{run}/cases/{case_id:path}")
    def case_page(run: str, case_id: str) -> HTMLResponse:
        """One case of a run: its content and every result, the deciding span marked."""
        return _case_page(viewer, run, case_id)

    @router.get("/runs/{run}/case")
    def case_by_query(run: str, id: str = "") -> HTMLResponse:
        """The same case page, for an id no path segment can carry."""
        # A case id no path segment can carry (`.`, `..`: see frame.case_url).
        return _case_page(viewer, run, id)


def _case_page(viewer: Viewer, run: str, case_id: str) -> HTMLResponse:
    with viewer.store() as store:
        try:
            record = stored_run(store, run)
            context = _case_context(store, record, case_id)
        except MissingPage as exc:
            return viewer.problem(404, str(exc))
    return viewer.page("case.html.j2", f"case {case_id} of run {record.run_id}", context)


def _canonical(path: str, filters: dict[str, str]) -> RedirectResponse:
    """A redirect from ``last``/``last~N`` to the run's own address, so its links and
    pages stay on that run when newer runs come."""
    target = f"{VIEW_PREFIX}/{path}{query(**filters)}"
    return RedirectResponse(target, status_code=303)


def _run_context(
    store: GapStore,
    record: RunRecord,
    filters: dict[str, str],
    part: str,
    after: int | None,
    trail: BackTrail,
) -> dict[str, Any]:
    notes = claim_notes(store, record)
    lines = claim_lines(record.summary, notes)
    page = results_page(store, record.run_id, filters, part, after, trail, RESULTS_PER_PAGE)
    contents = ContentReader(store, record_mode(record.options))
    results = [shown_result(row, contents, notes.get(row.claim_id)) for row in page.items]
    count = results_in_summary(lines)
    judged = None
    if lines and count <= INLINE_JUDGES_UP_TO:
        judged = _judged(read_run(store, record, max_results=0, content_budget=0))
    return {
        "run": RunView(record, store.location, 0),
        "claims": lines,
        "results_count": count,
        "claim_ids": [c.claim_id for c in lines] or sorted(notes),
        "statuses": STATUSES,
        "filters": filters,
        "filtered": any(filters[k] for k in ("claim", "status", "q")),
        "page": page,
        "count_up_to": COUNT_UP_TO,
        "show_all": query(claim=filters["claim"], q=filters["q"], order="run"),
        "results": results,
        "judged": judged,
        "findings": findings_lines(record.summary.get("findings")),
    }


def _judged(view: RunView) -> list[Any]:
    return [c for c in view.claims.values() if c.triples or c.missing_triple]


def _case_context(store: GapStore, record: RunRecord, case_id: str) -> dict[str, Any]:
    rows = case_results(store, record.run_id, case_id)
    if not rows:
        raise MissingPage(f"case {case_id!r} is not in run {record.run_id}")
    notes = claim_notes(store, record)
    content = ContentReader(store, record_mode(record.options)).read(rows[0].content_sha256)
    case = content.case or {}
    order = [*SHOWN_FIELDS, *(k for k in case if k not in SHOWN_FIELDS and k != "id")]
    others = case_in_runs(store, record.contract_id, case_id)
    return {
        "record": record,
        "case_id": case_id,
        "content": content,
        "fields": case_fields(rows, content, order, FIELD_CHARS),
        "results": [shown_result(r, None, notes.get(r.claim_id)) for r in rows],
        "others": [o for o in others if o.run_id != record.run_id],
    }
