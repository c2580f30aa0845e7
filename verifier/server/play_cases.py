"""The playground's stored cases: a contract's runs in the server's store, a run's case
ids, and a case's content as the store keeps it, to try a contract on."""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, HTTPException

from verifier.analyses import browse
from verifier.errors import VerifierError
from verifier.report._case_content import ContentReader
from verifier.viewer.frame import MissingPage, Viewer, stored_run

__all__ = ["add_case_routes"]

RUNS_LISTED: Final = 20
CASES_LISTED: Final = 200
"""Case ids offered per run (the first ones, in the order the run checked them)."""


def add_case_routes(router: APIRouter, viewer: Viewer) -> None:
    """Adds ``GET /runs``, ``/cases`` and ``/case`` to the playground's router."""

    @router.get("/runs")
    def runs(contract: str | None = None) -> Any:
        """The newest runs (of ``contract`` when given)."""
        with viewer.store() as store:
            page = browse.list_runs(store, contract=contract or None, limit=RUNS_LISTED)
        return {
            "runs": [
                {
                    "run_id": run.run_id,
                    "contract": run.contract_id,
                    "started_at": run.started_at,
                    "cases": run.total_cases,
                }
                for run in page.items
            ]
        }

    @router.get("/cases")
    def cases(run: str) -> Any:
        """The ids of a run's first cases."""
        with viewer.store() as store:
            record = _run(store, run)
            ids: dict[str, None] = {}
            after = None
            while len(ids) < CASES_LISTED:
                page = browse.run_results(store, record.run_id, after=after, limit=1000)
                ids.update(dict.fromkeys(row.case_id for row in page.items))
                if not page.has_more or page.next_after is None:
                    break
                after = page.next_after
        return {"run_id": record.run_id, "cases": list(ids)[:CASES_LISTED]}

    @router.get("/case")
    def case(run: str, id: str) -> Any:
        """A case's content as the run stored it."""
        with viewer.store() as store:
            record = _run(store, run)
            rows = browse.case_results(store, record.run_id, id)
            if not rows:
                raise HTTPException(404, f"run {record.run_id} has no case {id!r}")
            content = ContentReader(store).read(rows[0].content_sha256)
        if content.case is None:
            raise HTTPException(404, f"case {id!r}: {content.note}")
        return {"case": content.case, "withheld": sorted(content.withheld)}


def _run(store: Any, run: str) -> Any:
    try:
        return stored_run(store, run)
    except (MissingPage, VerifierError) as exc:
        raise HTTPException(404, str(exc).splitlines()[0]) from None
