"""``/view/trends?contract=ID``: a contract's pass rates over runs and days, and the audit.

What a page view can afford is shown at once; what reads every row is opened on
purpose:

- cheap, always: each claim's pass rate per run and per UTC day, with the audit's
  degradation alerts, from the runs' recorded tallies (``_run_trends``: one read of
  the runs table, whatever the store's size); the store's head seal and the runs
  still in flight;
- full, behind a plain link (``?contract=ID&audit=full``): ``verifier audit`` itself
  (``audit_history``, the report ``verifier audit --format json`` prints), which
  walks every row of the store to check the hash chain, schema and triples, and
  finds judge drift. It is not cached: the page says it reads every row, and the
  user opens it knowingly, as they would run the command.

The plots are those of the static trend page (``verifier.report.html_trend``),
inline SVG drawn in Python, so the page needs no script. The full audit marks the
judge successions the contract's claims cross on the run axis; the quick view, which
does not read the rows that say who judged, says how many the store records.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from verifier.analyses import browse
from verifier.analyses.crossings import SuccessionMark
from verifier.analyses.history import audit_history
from verifier.analyses.trends import ClaimTrend, DegradationAlert, RunRef
from verifier.analyses.window import DEFAULT_WINDOW, Window, parse_window
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage
from verifier.report.html_trend import MAX_PROBLEMS_SHOWN, ContractTrends, contract_trends
from verifier.viewer._run_trends import summary_trends
from verifier.viewer.frame import Viewer

__all__ = ["audit_context", "register", "trends_context"]


def _of_contract(contract_id: str, series: str) -> bool:
    return series == contract_id or series.startswith(contract_id + "@")


def _groups(
    claims: tuple[ClaimTrend, ...],
    runs: tuple[RunRef, ...],
    alerts: list[DegradationAlert],
    marks: tuple[SuccessionMark, ...] = (),
) -> list[ContractTrends]:
    ringed = {(a.contract_id, a.claim_id, a.run_id): a.describe() for a in alerts}
    return contract_trends(claims, runs, ringed, marks)


def trends_context(
    store: GapStore,
    contract_id: str,
    *,
    window: Window = DEFAULT_WINDOW,
    lineage: Lineage | None = None,
) -> dict[str, Any]:
    """What ``trends.html.j2`` shows of ``contract_id`` without reading a row.

    Args:
        store: The store.
        contract_id: The contract whose claims are shown.
        window: The earlier runs a run's pass rate is compared with (``parse_window``).
        lineage: Judge successions, counted, not placed (default: the store's).
    """
    records = store.runs()
    trends = summary_trends(records, contract_id, window=window)
    if lineage is None:
        lineage = Lineage.of_store(store)
    head = store.head()
    return {
        "contract_id": contract_id,
        "full": False,
        "trends": trends,
        "groups": _groups(trends.claims, trends.runs, list(trends.alerts)),
        "alerts": trends.alerts,
        "window": window,
        "head": head.seal_hash if head else None,
        "in_flight": [
            r.run_id for r in records if r.contract_id == contract_id and r.status == "running"
        ],
        "known": any(r.contract_id == contract_id for r in records),
        "successions": len(lineage.rows),
    }


def audit_context(
    store: GapStore,
    contract_id: str,
    *,
    window: Window = DEFAULT_WINDOW,
    lineage: Lineage | None = None,
) -> dict[str, Any]:
    """The full audit of the store, as ``verifier audit`` makes it, for ``contract_id``'s page.

    Integrity is the whole store's (the hash chain links every row); drift, alerts and
    trends are shown for the contract's runs, with the judge successions of ``lineage``
    its claims cross.

    Raises:
        StoreError: The store cannot be read.
    """
    history = audit_history(store, window=window, lineage=lineage)
    integrity = history.integrity
    claims = tuple(t for t in history.trends.claims if _of_contract(contract_id, t.contract_id))
    runs = tuple(r for r in history.trends.runs if _of_contract(contract_id, r.contract_id))
    alerts = [a for a in history.alerts if _of_contract(contract_id, a.contract_id)]
    return {
        "contract_id": contract_id,
        "full": True,
        "history": history,
        "report": history.as_dict(),
        "integrity_lines": integrity.render_text().splitlines()[:2],
        "problems": integrity.problems[:MAX_PROBLEMS_SHOWN],
        "problem_count": len(integrity.problems) + integrity.omitted_problems,
        "groups": _groups(claims, runs, alerts, history.trends.marks),
        "alerts": alerts,
        "drift": [d for d in history.drift if _of_contract(contract_id, d.contract_id)],
        "succession_changes": [
            s for s in history.successions if _of_contract(contract_id, s.contract_id)
        ],
        "mismatches": list(history.mismatches),
        "window": window,
        "known": bool(runs),
    }


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds ``GET /trends`` to the viewer's router."""

    @router.get("/trends")
    def trends_page(
        contract: str | None = None,
        audit: Literal["full"] | None = None,
        window: str = Query(DEFAULT_WINDOW.text, max_length=16),
    ) -> HTMLResponse:
        """A contract's pass rates over its runs, with degradation alerts: ``window`` is
        a count of runs (``5``) or a span before each run (``4w``, ``28d``, ``12h``)."""
        try:
            span = parse_window(window)
        except ValueError as exc:
            return viewer.problem(422, str(exc))
        with viewer.store() as store:
            if not contract:
                contracts = browse.contract_ids(store)
                return viewer.page(
                    "trends.html.j2", "trends", {"contract_id": None, "contracts": contracts}
                )
            try:
                make = audit_context if audit == "full" else trends_context
                context = make(store, contract, window=span)
            except VerifierError as exc:
                return viewer.problem(503, str(exc).splitlines()[0])
        return viewer.page("trends.html.j2", f"trends of {contract}", context)
