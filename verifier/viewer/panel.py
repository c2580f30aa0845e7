"""``/view/panel/RUN[?case=ID]``: one evaluation's assertion results, for a builder's sidebar.

The PRD's builder shows, beside the prompt being edited, how the last evaluation
(``verifier evaluate``: one output judged against assertions, one run) came out:
each assertion's id, pass or fail, the judge's reasoning and the judge's stability
triple. This page is that panel: one compact, script-free document meant for an
``<iframe>``, with the case's output beside the verdicts and the spans that decided
its failing results marked, as the case page marks them (a run that recorded no case
text says so instead). A run of many cases shows one of them (``?case=ID``; by default the
evaluation's case, else the run's first).

Framing is refused everywhere but where it is meant to be: the response's content
security policy says ``frame-ancestors 'self'`` plus the origins given to
``verifier view`` / ``verifier serve`` with ``--frame-ancestor ORIGIN``
(``verifier.viewer.frame_ancestors``). ``frame-ancestors`` works only as a header, never in
a ``<meta>`` tag, so the policy is sent as one.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from verifier.analyses import browse
from verifier.evaluate import CASE_ID, CONTRACT_ID
from verifier.gaps.content import record_mode
from verifier.gaps.store import GapStore, RunRecord, StoreError, resolve_run_id
from verifier.report._case_content import ContentReader
from verifier.report.case_view import FIELD_CHARS
from verifier.viewer._views import case_fields
from verifier.viewer.frame import Viewer
from verifier.viewer.frame_ancestors import frame_ancestors_policy

__all__ = ["PanelNotFound", "panel_context", "register"]


PANEL_FIELDS = ("output",)
"""The case's fields the panel shows beside the verdicts, besides those a failing
result's spans point into."""


class PanelNotFound(LookupError):
    """The run, or the case in it, is not in the store; the message says which."""


def _pick_case(store: GapStore, record: RunRecord, case_id: str | None) -> str:
    if case_id is not None:
        return case_id
    if record.contract_id == CONTRACT_ID:
        return CASE_ID
    first = browse.run_results(store, record.run_id, limit=1).items
    if not first:
        raise PanelNotFound(f"run {record.run_id} has no results yet")
    return str(first[0].case_id)


def _triple(evidence: dict[str, Any]) -> dict[str, str] | None:
    judge = evidence.get("judge")
    if not isinstance(judge, dict):
        return None
    return {k: str(judge.get(k) or "") for k in ("model_id", "prompt_sha", "sampling_sha")}


def _verdict(record: RunRecord) -> tuple[bool | None, Any]:
    """The case's pass and score when the run had this one case (an evaluation), which
    its record says with the contract's weights and threshold; else ``(None, None)``."""
    summary = record.summary
    if summary.get("total_cases") == 1 and isinstance(summary.get("passed_cases"), int):
        return summary["passed_cases"] == 1, summary.get("average_score")
    return None, None


def panel_context(store: GapStore, run_id: str, case_id: str | None = None) -> dict[str, Any]:
    """What ``panel.html.j2`` shows: the case's assertion results in the run.

    Raises:
        PanelNotFound: No such run, or no such case in it.
    """
    record = store.run(run_id)
    if record is None:
        raise PanelNotFound(f"no run {run_id} in the store")
    case_id = _pick_case(store, record, case_id)
    rows = browse.case_results(store, run_id, case_id)
    if not rows:
        raise PanelNotFound(f"run {run_id} has no case {case_id}")
    passed, score = _verdict(record)
    content = ContentReader(store, record_mode(record.options)).read(rows[0].content_sha256)
    return {
        "run": record,
        "case_id": case_id,
        "results": [(row, _triple(row.evidence)) for row in rows],
        "fields": case_fields(rows, content, PANEL_FIELDS, FIELD_CHARS),
        "content_note": content.note,
        "passed": passed,
        "score": score,
        "threshold": record.summary.get("threshold"),
        "counts": {s: sum(r.status == s for r in rows) for s in ("pass", "fail", "error")},
    }


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds ``GET /panel/{run_id}`` to the viewer's router, framable by
    ``viewer.frame_ancestors``."""
    policy = frame_ancestors_policy(viewer.frame_ancestors)

    @router.get("/panel/{run_id}")
    def panel_page(run_id: str, case: str | None = None) -> HTMLResponse:
        """A run's evaluation panel, made to be framed by another page."""
        with viewer.store() as store:
            try:
                run_id = resolve_run_id(store, run_id)
                context = panel_context(store, run_id, case or None)
            except (PanelNotFound, StoreError) as exc:
                context = None
                response = viewer.problem(404, str(exc).splitlines()[0])
        if context is not None:
            response = viewer.page("panel.html.j2", f"panel {run_id}", context)
        # The panel's framer sees why there is no panel, too.
        response.headers["content-security-policy"] = policy
        return response
