"""``/view/diff?a=RUN&b=RUN``: what changed between two runs, claim by claim, and on which cases.

First the paired statistics of ``verifier compare`` (the very figures of
``verifier compare --format json``: ``verifier.compare.report_json.as_json`` of the
same ``compare_runs``), one row per claim and one for whole cases. Then the cases
that flipped (passed in one run, failed in the other), filterable by claim and
direction, each shown side by side: the output run A judged and the output run B
judged, the deciding spans marked, with each run's reason. The flips are paged
(``FLIPS_PER_PAGE``), so a pair of large runs with thousands of flips renders one
page of them; the rows of a page are read by case (``browse.case_results``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from verifier.analyses import browse
from verifier.analyses.browse import ResultRow
from verifier.compare.report import as_json, summary_line
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, resolve_run_id
from verifier.gaps.successions import Lineage
from verifier.report._case_content import ContentReader, FieldView, field_views
from verifier.report._spans import deciding_spans
from verifier.viewer._flips import DiffCache, Flip, RunDiff
from verifier.viewer.frame import Viewer

__all__ = ["FLIPS_PER_PAGE", "FlipView", "SideView", "diff_context", "register"]

FLIPS_PER_PAGE = 20
"""Flipped cases shown on one page."""
FIELD_CHARS = 4_000
"""Characters of an output shown per side; the case page shows it whole."""

CACHE = DiffCache()
"""The diffs of the last pairs of ended runs looked at, shared by every request."""


@dataclass(frozen=True, slots=True)
class SideView:
    """One run's side of a flip: its row, and the fields it read."""

    row: ResultRow | None
    fields: tuple[FieldView, ...]
    note: str | None


@dataclass(frozen=True, slots=True)
class FlipView:
    """One flipped case as the page shows it: run A's side, then run B's."""

    flip: Flip
    baseline: SideView
    candidate: SideView


def _side(store: GapStore, reader: ContentReader, run_id: str, flip: Flip, seq: int) -> SideView:
    row = next((r for r in browse.case_results(store, run_id, flip.case_id) if r.seq == seq), None)
    if row is None:
        return SideView(None, (), f"row {seq} of run {run_id} is no longer in the store")
    content = reader.read(row.content_sha256)
    fields = field_views(content, deciding_spans(row.evidence), FIELD_CHARS, ("output",))
    return SideView(row, fields, content.note)


def flip_views(store: GapStore, diff: RunDiff, flips: list[Flip]) -> Iterator[FlipView]:
    """The rows and outputs of ``flips``, read one case at a time."""
    paired = diff.comparison.paired
    reader = ContentReader(store)
    for flip in flips:
        yield FlipView(
            flip,
            _side(store, reader, paired.baseline.run_id, flip, flip.baseline_seq),
            _side(store, reader, paired.candidate.run_id, flip, flip.candidate_seq),
        )


def _counts(diff: RunDiff) -> dict[str, dict[str, int]]:
    """Flips per claim and direction, for the filter links."""
    counts: dict[str, dict[str, int]] = {}
    for flip in diff.flips:
        per = counts.setdefault(flip.claim_id, {"regressed": 0, "fixed": 0})
        per[flip.direction] += 1
    return counts


def diff_context(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    *,
    claim: str | None = None,
    direction: str | None = None,
    page: int = 1,
    lineage: Lineage | None = None,
) -> dict[str, Any]:
    """What ``diff.html.j2`` shows for runs ``baseline_id`` (A) and ``candidate_id`` (B).

    Args:
        store: The store holding both runs.
        baseline_id: Run A, the reference.
        candidate_id: Run B; differences are B minus A.
        claim: Show only this claim's flips.
        direction: ``regressed`` or ``fixed``: show only those flips.
        page: Which page of the selected flips (from 1).
        lineage: Judge successions (default: the store's), which the comparison
            names when the runs' judges differ by one.

    Raises:
        CompareError: A run is unknown, or the runs cannot be compared.
    """
    diff = CACHE.diff(
        store,
        baseline_id,
        candidate_id,
        lineage=Lineage.of_store(store) if lineage is None else lineage,
    )
    comparison = diff.comparison
    selected = diff.select(claim, direction)
    pages = max(1, -(-len(selected) // FLIPS_PER_PAGE))
    page = min(max(page, 1), pages)
    shown = selected[(page - 1) * FLIPS_PER_PAGE : page * FLIPS_PER_PAGE]
    return {
        "a": baseline_id,
        "b": candidate_id,
        "stats": as_json(comparison),
        "summary": summary_line(comparison),
        "flip_counts": _counts(diff),
        "flip_total": len(diff.flips),
        "claim": claim,
        "direction": direction,
        "selected": len(selected),
        "page": page,
        "pages": pages,
        "first": (page - 1) * FLIPS_PER_PAGE + 1,
        "flips": list(flip_views(store, diff, shown)),
    }


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds ``GET /diff`` to the viewer's router."""

    @router.get("/diff")
    def diff_page(
        a: str = Query(..., description="Run A, the baseline (an id, last or last~N)."),
        b: str = Query(..., description="Run B, the candidate."),
        claim: str | None = None,
        direction: Literal["regressed", "fixed"] | None = Query(None, alias="dir"),
        page: int = Query(1, ge=1),
    ) -> HTMLResponse:
        """Two runs side by side: the results that regressed or were fixed."""
        with viewer.store() as store:
            try:
                run_a, run_b = resolve_run_id(store, a), resolve_run_id(store, b)
                context = diff_context(
                    store,
                    run_a,
                    run_b,
                    claim=claim or None,
                    direction=direction,
                    page=page,
                )
            except VerifierError as exc:
                return viewer.problem(404, str(exc).splitlines()[0])
        return viewer.page("diff.html.j2", f"diff {run_a} → {run_b}", context)
