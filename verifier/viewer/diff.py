"""``/view/diff?a=RUN&b=RUN``: what changed between two runs, claim by claim, and on which cases.

First the paired statistics of ``verifier compare`` (the very figures of
``verifier compare --format json``: ``verifier.compare.report_json.as_json`` of the
same ``compare_runs``), one row per claim and one for whole cases. Then the cases
that flipped (passed in one run, failed in the other), filterable by claim and
direction, each shown side by side: the output run A judged and the output run B
judged, the deciding spans marked, with each run's reason.

The statistics need both runs read to their ends, the flips of a page only as far as
the page: so the flips are read for each request (``_flips.flip_page``, a merge join
that stops after the page; the next page resumes after its last flip), while the
statistics are computed in the background, once per pair of runs, and kept
(``_summaries.DiffSummaries``). Until they are ready the page says so and reloads
itself (a ``refresh`` meta element; no script); a request waits ``SUMMARY_WAIT`` for
them, so the page of small runs comes whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse

from verifier.analyses import browse
from verifier.analyses.browse import ResultRow
from verifier.compare.report import as_json, summary_line
from verifier.compare.run_checks import RunInfo, check_runs, run_info
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, resolve_run_id
from verifier.gaps.successions import Lineage
from verifier.report._case_content import ContentReader, FieldView, field_views
from verifier.report._spans import deciding_spans
from verifier.viewer._flips import Flip, FlipCursor, FlipPage, flip_page
from verifier.viewer._summaries import DiffSummaries, SummaryTask
from verifier.viewer.frame import Viewer

__all__ = [
    "FLIPS_PER_PAGE",
    "REFRESH_SECONDS",
    "SUMMARY_WAIT",
    "FlipView",
    "SideView",
    "diff_context",
    "register",
]

FLIPS_PER_PAGE = 20
"""Flipped cases shown on one page."""
FIELD_CHARS = 4_000
"""Characters of an output shown per side; the case page shows it whole."""
SUMMARY_WAIT = 0.2
"""Seconds a request waits for the summary after reading its flips, before it shows
the page without it."""
REFRESH_SECONDS = 3
"""How often a page whose summary is being computed reloads itself."""


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


def flip_views(
    store: GapStore, runs: tuple[str, str], flips: tuple[Flip, ...]
) -> Iterator[FlipView]:
    """The rows and outputs of ``flips`` of runs ``runs`` (A, B), read one case at a time."""
    reader = ContentReader(store)
    for flip in flips:
        yield FlipView(
            flip,
            _side(store, reader, runs[0], flip, flip.baseline_seq),
            _side(store, reader, runs[1], flip, flip.candidate_seq),
        )


@dataclass(frozen=True, slots=True)
class _Selection:
    """The runs and the flips a request asks for, as the links of its page carry them."""

    a: str
    b: str
    claim: str | None
    direction: str | None

    def url(self, **more: str | int) -> str:
        """This selection's address (relative), with ``more`` parameters."""
        params: dict[str, str | int] = {"a": self.a, "b": self.b}
        if self.claim:
            params["claim"] = self.claim
        if self.direction:
            params["dir"] = self.direction
        return "?" + urlencode({**params, **more})


def _pager(selection: _Selection, shown: FlipPage, after: FlipCursor | None) -> dict[str, Any]:
    """The links of a page of flips: the next page resumes after its last flip; the one
    before it, the first page or (deeper) the page by number."""
    page = shown.number
    here: dict[str, str | int] = {}
    if after is not None:
        here = {"after": after.case_id, "after_claim": after.claim_id}
    if page > 1:
        here["page"] = page
    cursor = shown.after
    return {
        "here": selection.url(**here),
        "next_url": None
        if cursor is None
        else selection.url(after=cursor.case_id, after_claim=cursor.claim_id, page=page + 1),
        "prev_url": None
        if page == 1
        else selection.url()
        if page == 2
        else selection.url(page=page - 1),
    }


def _summary_context(task: SummaryTask, selection: _Selection) -> dict[str, Any]:
    """What the page shows of the summary: its figures when ready, else why not yet."""
    summary = task.summary
    if summary is None:
        return {
            "stats": None,
            "summary": None,
            "summary_error": task.error,
            "pending": task.error is None,
            "flip_counts": {},
            "flip_total": None,
            "selected": None,
            "pages": None,
        }
    selected = summary.selected(selection.claim, selection.direction)
    return {
        "stats": as_json(summary.comparison),
        "summary": summary_line(summary.comparison),
        "summary_error": None,
        "pending": False,
        "flip_counts": summary.flips,
        "flip_total": summary.selected(None, None),
        "selected": selected,
        "pages": max(1, -(-selected // FLIPS_PER_PAGE)),
    }


def _checked_runs(store: GapStore, baseline_id: str, candidate_id: str) -> tuple[RunInfo, RunInfo]:
    runs = run_info(store, baseline_id, "baseline"), run_info(store, candidate_id, "candidate")
    check_runs(*runs)
    return runs


def diff_context(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    *,
    summaries: DiffSummaries,
    claim: str | None = None,
    direction: str | None = None,
    page: int = 1,
    after: FlipCursor | None = None,
    lineage: Lineage | None = None,
    wait: float = SUMMARY_WAIT,
) -> dict[str, Any]:
    """What ``diff.html.j2`` shows for runs ``baseline_id`` (A) and ``candidate_id`` (B).

    Args:
        store: The store holding both runs.
        baseline_id: Run A, the reference.
        candidate_id: Run B; differences are B minus A.
        summaries: Where the runs' summary is computed and kept (started if it is not).
        claim: Show only this claim's flips.
        direction: ``regressed`` or ``fixed``: show only those flips.
        page: Which page of the selected flips (from 1); with ``after``, only its name.
        after: Show the flips after this one (the next page's link says where).
        lineage: Judge successions (default: the store's), which the comparison
            names when the runs' judges differ by one.
        wait: Seconds to wait for the summary once the flips are read.

    Raises:
        CompareError: A run is unknown, or the runs cannot be compared.
    """
    runs = _checked_runs(store, baseline_id, candidate_id)
    shown = flip_page(
        store,
        baseline_id,
        candidate_id,
        size=FLIPS_PER_PAGE,
        claim=claim,
        direction=direction,
        after=after,
        number=max(page, 1),
    )
    # Started once the page's flips are read, so its walk does not slow theirs.
    lineage = Lineage.of_store(store) if lineage is None else lineage
    task = summaries.task(store, baseline_id, candidate_id, lineage=lineage)
    selection = _Selection(baseline_id, candidate_id, claim, direction)
    flips = list(flip_views(store, (baseline_id, candidate_id), shown.flips))
    return {
        "a": baseline_id,
        "b": candidate_id,
        "runs": runs,
        **_summary_context(task.wait(wait), selection),
        "refresh": REFRESH_SECONDS,
        "claim": claim,
        "direction": direction,
        "page": shown.number,
        "first": (shown.number - 1) * FLIPS_PER_PAGE + 1,
        "flips": flips,
        **_pager(selection, shown, after),
    }


def register(router: APIRouter, viewer: Viewer) -> None:
    """Adds ``GET /diff`` to the viewer's router, with the summaries of its store."""
    summaries = DiffSummaries(viewer.store_target)

    @router.get("/diff")
    def diff_page(
        a: str = Query(..., description="Run A, the baseline (an id, last or last~N)."),
        b: str = Query(..., description="Run B, the candidate."),
        claim: str | None = None,
        direction: Literal["regressed", "fixed"] | None = Query(None, alias="dir"),
        page: int = Query(1, ge=1),
        after: str | None = Query(None, description="The case of the last flip shown."),
        after_claim: str | None = Query(None, description="The claim of the last flip shown."),
    ) -> HTMLResponse:
        """Two runs side by side: the results that regressed or were fixed."""
        if (after is None) != (after_claim is None):
            return viewer.problem(400, "after and after_claim name the last flip shown together")
        cursor = None if after is None or after_claim is None else FlipCursor(after, after_claim)
        with viewer.store() as store:
            try:
                run_a, run_b = resolve_run_id(store, a), resolve_run_id(store, b)
                context = diff_context(
                    store,
                    run_a,
                    run_b,
                    summaries=summaries,
                    claim=claim or None,
                    direction=direction,
                    page=page,
                    after=cursor,
                )
            except VerifierError as exc:
                return viewer.problem(404, str(exc).splitlines()[0])
        return viewer.page("diff.html.j2", f"diff {run_a} → {run_b}", context)
