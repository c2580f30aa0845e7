"""Failing results first and counts of filtered results, on both backends
(``verifier.analyses.browse``)."""

from __future__ import annotations

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.analyses import browse
from verifier.analyses.browse import count_results, list_runs, run_results
from verifier.gaps.store import GapStore


def _run(store: GapStore, run_id: str, rows: int, **options: str) -> None:
    begin(store, run_id, started_at="2026-11-25T09:00:00Z", options=options)
    drafts = [draft(n, run_id) for n in range(1, rows + 1)]
    drafts[1]["status"] = "error"
    store.append(drafts)
    store.finish_run(run_id, status="finished", finished_at="2026-11-25T09:01:00Z", summary={})


def _seqs(store: GapStore, run_id: str, **filters: object) -> list[int]:
    seqs: list[int] = []
    after = None
    while True:
        page = run_results(store, run_id, after=after, limit=4, **filters)  # type: ignore[arg-type]
        seqs += [row.seq for row in page.items]
        if not page.has_more:
            return seqs
        after = page.next_after


def test_failing_results_and_the_others_split_a_run(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _run(store, "r", 20)
        # Every fifth draft fails; the second is an error.
        assert _seqs(store, "r", failing=True) == [2, 5, 10, 15, 20]
        others = _seqs(store, "r", failing=False)
        assert others == [n for n in range(1, 21) if n not in (2, 5, 10, 15, 20)]
        assert _seqs(store, "r", failing=True, claim="claim-2") == [2, 5]
        assert run_results(store, "r", failing=True).total is None


def test_filtered_results_are_counted(
    store_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store_backend.open() as store:
        _run(store, "r", 20)
        assert count_results(store, "r") == 20
        assert count_results(store, "r", status="fail") == 4
        assert count_results(store, "r", status="pass") == 15
        assert count_results(store, "r", failing=True) == 5
        assert count_results(store, "r", claim="tone") == 5
        assert count_results(store, "r", claim="tone", status="fail") == 1
        assert count_results(store, "r", text="CASE 1") == len(_seqs(store, "r", text="case 1"))
        assert count_results(store, "nowhere") == 0
        # Beyond COUNT_UP_TO results, what no index answers is not counted.
        monkeypatch.setattr(browse, "COUNT_UP_TO", 10)
        assert count_results(store, "r", text="case 1") is None
        assert count_results(store, "r", claim="tone", status="fail") is None
        assert count_results(store, "r", status="pass") == 11  # counted up to 11


def test_a_run_with_judges_off_is_listed_as_such(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _run(store, "off", 2, judges="off")
        _run(store, "on", 2)
        listed = {r.run_id: r.judges_off for r in list_runs(store).items}
        assert listed == {"off": True, "on": False}
