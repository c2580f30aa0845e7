"""A run's grid a page of cases at a time, failing cases first, on both backends
(``verifier.analyses.grid``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.analyses import browse
from verifier.analyses.grid import GridCursor, run_grid
from verifier.gaps.store import GapStore

VERDICTS = {
    "c0": ("pass", "pass"),
    "c1": ("pass", "fail"),
    "c2": ("pass", "pass"),
    "c3": ("error", "pass"),
    "c4": ("fail", "fail"),
    "c5": ("pass", "skipped"),
}
"""Each case's status on claims ``a`` and ``b``."""


def _plant(store: GapStore, run_id: str, *, by_claim: bool = False) -> None:
    """The cases of ``VERDICTS``, written case by case (or claim by claim)."""
    begin(store, run_id, started_at="2026-11-25T09:00:00Z")
    pairs = [(case, i) for case in VERDICTS for i in (0, 1)]
    if by_claim:
        pairs.sort(key=lambda pair: pair[1])
    drafts: list[dict[str, Any]] = []
    for case, i in pairs:
        status = VERDICTS[case][i]
        reason = "needs a judge" if status == "skipped" else f"{status} on {case}"
        drafts.append(
            draft(
                len(drafts) + 1,
                run_id,
                case_id=case,
                claim_id="ab"[i],
                kind="rubric",
                status=status,
                score=None,
                reason=reason,
                evidence={},
            )
        )
    store.append(drafts)


def _cases(store: GapStore, run_id: str, limit: int = 2, **filters: Any) -> list[str]:
    """Every case of the grid, read page by page."""
    cases: list[str] = []
    at = None
    while True:
        page = run_grid(store, run_id, at=at, limit=limit, **filters)
        cases += [c.case_id for c in page.cases]
        if page.next is None:
            return cases
        at = page.next


def test_failing_cases_come_first_then_the_others_each_once(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _plant(store, "g")
        _plant(store, "h", by_claim=True)
        first = run_grid(store, "g", limit=2)
        assert [(c.case_id, c.failing) for c in first.cases] == [("c1", True), ("c3", True)]
        assert first.next == GridCursor("failing", 7)
        assert [r.status for r in first.cases[1].results] == ["error", "pass"]
        assert _cases(store, "g") == ["c1", "c3", "c4", "c0", "c2", "c5"]
        # Rows written claim by claim: a case's first failing row places it.
        assert _cases(store, "h", limit=1) == ["c3", "c4", "c1", "c0", "c2", "c5"]
        assert run_grid(store, "nowhere").cases == []


def test_the_grid_filters_by_claim_status_and_text(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _plant(store, "g")
        assert _cases(store, "g", claim="a") == ["c3", "c4", "c0", "c1", "c2", "c5"]
        only_a = run_grid(store, "g", claim="a", limit=10).cases
        assert {r.claim_id for c in only_a for r in c.results} == {"a"}
        assert [c.failing for c in only_a] == [True, True, False, False, False, False]
        assert _cases(store, "g", status="fail") == ["c1", "c4"]
        assert _cases(store, "g", status="pass") == ["c1", "c3", "c0", "c2", "c5"]
        assert _cases(store, "g", status="skipped") == ["c5"]
        assert _cases(store, "g", claim="b", status="pass") == ["c0", "c2", "c3"]
        assert _cases(store, "g", text="C2") == ["c2"]
        assert _cases(store, "g", text="JUDGE") == ["c5"]
        assert _cases(store, "g", text="nothing like it") == []


def test_a_part_looks_at_one_window_of_seqs_per_page(
    store_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store_backend.open() as store:
        _plant(store, "g")
        monkeypatch.setattr(browse, "SCAN_WINDOW", 3)
        first = run_grid(store, "g", limit=10)  # seqs 1-3 hold no failing result
        assert (first.cases, first.next) == ([], GridCursor("failing", 3))
        assert _cases(store, "g", limit=10) == ["c1", "c3", "c4", "c0", "c2", "c5"]
        # A text search looks at the text window, as the run page's does.
        monkeypatch.setattr(browse, "SCAN_WINDOW", 1000)
        monkeypatch.setattr(browse, "TEXT_SCAN_WINDOW", 3)
        searched = run_grid(store, "g", text="JUDGE", limit=10)
        assert (searched.cases, searched.next) == ([], GridCursor("failing", 3))
        assert _cases(store, "g", limit=10, text="JUDGE") == ["c5"]


def test_a_cursor_is_written_and_read_back() -> None:
    for cursor in (GridCursor("failing", 0), GridCursor("rest", 123)):
        assert GridCursor.parse(cursor.text()) == cursor
    for bad in ("", "x1", "f", "r-1", "f1.5", "f\u0661"):
        assert GridCursor.parse(bad) is None
    with pytest.raises(ValueError, match="limit must be 1 to 1000"):
        run_grid(None, "g", limit=0)  # type: ignore[arg-type]
