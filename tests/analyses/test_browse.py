"""Browsing a store a page at a time, on both backends (``verifier.analyses.browse``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.analyses import browse
from verifier.analyses.audit import audit_store
from verifier.analyses.browse import (
    case_in_runs,
    case_results,
    contract_ids,
    cost_known,
    list_runs,
    run_results,
)
from verifier.gaps.store import GapStore


def _run(
    store: GapStore,
    run_id: str,
    rows: int,
    *,
    started_at: str,
    contract_id: str = "demo",
    finished: bool = True,
    summary: dict[str, Any] | None = None,
) -> None:
    begin(store, run_id, started_at=started_at, contract_id=contract_id)
    store.append([draft(n, run_id, contract_id=contract_id) for n in range(1, rows + 1)])
    if finished:
        store.finish_run(run_id, status="finished", finished_at=started_at, summary=summary or {})


def _seqs(store: GapStore, run_id: str, **filters: Any) -> list[int]:
    """Every seq of a listing, read page by page (3 at a time)."""
    seqs: list[int] = []
    after = None
    while True:
        page = run_results(store, run_id, after=after, limit=3, **filters)
        seqs += [row.seq for row in page.items]
        if not page.has_more:
            return seqs
        after = page.next_after


def test_runs_are_listed_newest_first_with_their_summary_and_counted(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        summary = {
            "total_cases": 4,
            "passed_cases": 3,
            "usage": {"calls": 12, "cost_usd": 0.25},
        }
        _run(store, "old", 3, started_at="2026-11-25T09:00:00Z", summary=summary)
        _run(store, "other", 3, started_at="2026-11-25T10:00:00Z", contract_id="second")
        _run(store, "new", 3, started_at="2026-11-25T11:00:00Z", finished=False)
        page = list_runs(store)
        assert [run.run_id for run in page.items] == ["new", "other", "old"]
        assert (page.total, page.has_more, page.next_after) == (3, False, None)
        old = page.items[2]
        assert (old.contract_id, old.contract_version, old.status) == ("demo", 3, "finished")
        assert (old.total_cases, old.passed_cases, old.pass_rate) == (4, 3, 0.75)
        assert (old.judge_calls, old.cost_usd) == (12, 0.25)
        new = page.items[0]
        assert (new.status, new.finished_at, new.total_cases, new.pass_rate) == (
            "running",
            None,
            None,
            None,
        )
        first = list_runs(store, limit=2)
        assert [run.run_id for run in first.items] == ["new", "other"]
        # Cost is known on a page when one of its runs records it.
        assert cost_known(page.items) and not cost_known(first.items)
        assert (first.has_more, first.next_after, first.total) == (True, 2, 3)
        rest = list_runs(store, offset=2, limit=2)
        assert [run.run_id for run in rest.items] == ["old"]
        assert (rest.has_more, rest.next_after) == (False, None)
        demo = list_runs(store, contract="demo")
        assert [run.run_id for run in demo.items] == ["new", "old"] and demo.total == 2
        done = list_runs(store, contract="demo", status="finished")
        assert [run.run_id for run in done.items] == ["old"] and done.total == 1
        assert list_runs(store, status="interrupted").items == []
        assert contract_ids(store) == ["demo", "second"]


def test_an_empty_store_lists_nothing(store_backend: Backend) -> None:
    with store_backend.open() as store:
        assert list_runs(store) == browse.Page([], False, None, 0)
        assert contract_ids(store) == []


def test_a_run_pages_by_seq_and_a_page_of_exactly_limit_rows_ends_it(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        _run(store, "a", 6, started_at="2026-11-25T09:00:00Z")
        _run(store, "b", 4, started_at="2026-11-25T10:00:00Z", finished=False)
        first = run_results(store, "a", limit=3)
        assert [row.seq for row in first.items] == [1, 2, 3]
        assert (first.has_more, first.next_after, first.total) == (True, 3, 6)
        second = run_results(store, "a", after=first.next_after, limit=3)
        assert [row.seq for row in second.items] == [4, 5, 6]
        assert (second.has_more, second.next_after) == (False, None)
        whole = run_results(store, "a", limit=6)
        assert len(whole.items) == 6 and not whole.has_more
        # A run still going has no recorded count.
        running = run_results(store, "b")
        assert [row.seq for row in running.items] == [7, 8, 9, 10]
        assert running.total is None
        row = first.items[0]
        assert (row.run_id, row.case_id, row.claim_id, row.kind, row.status) == (
            "a",
            "case-0",
            "claim-1",
            "rubric",
            "pass",
        )
        assert (row.score, row.reason, row.evidence) == (
            1.0,
            "claim checked on case 0",
            {"span": [1, 5]},
        )
        assert row.content_sha256 is None


def test_an_empty_or_unknown_run_gives_an_empty_page(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _run(store, "empty", 0, started_at="2026-11-25T09:00:00Z")
        assert run_results(store, "empty") == browse.Page([], False, None, 0)
        assert run_results(store, "nowhere") == browse.Page([], False, None, 0)
        assert case_results(store, "nowhere", "case-0") == []


def test_results_filter_by_claim_status_and_text_alone_and_together(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        _run(store, "a", 30, started_at="2026-11-25T09:00:00Z")
        _run(store, "b", 30, started_at="2026-11-25T10:00:00Z")
        rows = [draft(n, "b") for n in range(1, 31)]
        seq_of = {n: 30 + n for n in range(1, 31)}

        def expected(keep: Any) -> list[int]:
            return [seq_of[n] for n, row in enumerate(rows, start=1) if keep(row)]

        assert _seqs(store, "b") == list(range(31, 61))
        assert _seqs(store, "b", claim="claim-1") == expected(lambda r: r["claim_id"] == "claim-1")
        assert _seqs(store, "b", status="fail") == expected(lambda r: r["status"] == "fail")
        both = expected(lambda r: r["claim_id"] == "tone" and r["status"] == "fail")
        assert both and _seqs(store, "b", claim="tone", status="fail") == both
        # Case-insensitive, in the case id, the claim id or the reason.
        assert _seqs(store, "b", text="CASE-7") == expected(lambda r: r["case_id"] == "case-7")
        assert _seqs(store, "b", text="TONE") == expected(lambda r: r["claim_id"] == "tone")
        assert _seqs(store, "b", text="On Case 1") == expected(lambda r: "on case 1" in r["reason"])
        mixed = expected(lambda r: r["status"] == "pass" and "case 2" in r["reason"])
        assert mixed and _seqs(store, "b", status="pass", text="case 2") == mixed
        assert _seqs(store, "b", text="nothing like it") == []
        assert run_results(store, "b", text="   ").total == 30  # blank text filters nothing
        page = run_results(store, "b", status="fail")
        assert page.total is None and all(row.status == "fail" for row in page.items)


def test_a_scan_looks_at_one_window_of_seqs_per_page(
    store_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    with store_backend.open() as store:
        _run(store, "a", 25, started_at="2026-11-25T09:00:00Z")
        # A text search reads its rows whole, so its window is the smaller one.
        assert browse.scan_window("case 7") == browse.TEXT_SCAN_WINDOW < browse.SCAN_WINDOW
        assert browse.scan_window("") == browse.SCAN_WINDOW
        monkeypatch.setattr(browse, "TEXT_SCAN_WINDOW", 10)
        monkeypatch.setattr(browse, "SCAN_WINDOW", 1000)
        first = run_results(store, "a", text="case 7")  # rows 21-23 say "case 7"
        assert (first.items, first.has_more, first.next_after) == ([], True, 10)
        second = run_results(store, "a", text="case 7", after=10)
        assert (second.items, second.has_more, second.next_after) == ([], True, 20)
        third = run_results(store, "a", text="case 7", after=20)
        assert [row.seq for row in third.items] == [21, 22, 23]
        assert (third.has_more, third.next_after) == (False, None)
        # Claim and status together are scanned the same way; each filter alone is not.
        monkeypatch.setattr(browse, "SCAN_WINDOW", 10)
        assert _seqs(store, "a", claim="claim-0", status="fail") == [15]
        assert len(run_results(store, "a", status="pass", limit=50).items) == 20


def test_a_case_shows_every_result_and_the_runs_holding_it(store_backend: Backend) -> None:
    with store_backend.open() as store:
        _run(store, "a", 9, started_at="2026-11-25T09:00:00Z")
        _run(store, "b", 3, started_at="2026-11-25T10:00:00Z")
        _run(store, "c", 9, started_at="2026-11-25T11:00:00Z")
        _run(store, "elsewhere", 9, started_at="2026-11-25T12:00:00Z", contract_id="second")
        found = case_results(store, "c", "case-2")
        assert [(row.seq, row.claim_id) for row in found] == [
            (18, "claim-0"),
            (19, "claim-1"),
            (20, "tone"),
        ]
        assert all(row.case_id == "case-2" and row.run_id == "c" for row in found)
        assert [run.run_id for run in case_in_runs(store, "demo", "case-2")] == ["c", "a"]
        assert [run.run_id for run in case_in_runs(store, "demo", "case-0")] == ["c", "b", "a"]
        assert [run.run_id for run in case_in_runs(store, "demo", "case-0", limit=1)] == ["c"]
        assert case_in_runs(store, "demo", "no-such-case") == []


def test_limits_out_of_range_are_refused(store_backend: Backend) -> None:
    with store_backend.open() as store:
        with pytest.raises(ValueError, match="limit must be 1 to 1000, not 0"):
            run_results(store, "a", limit=0)
        with pytest.raises(ValueError, match="limit must be 1 to 1000, not 1001"):
            list_runs(store, limit=1001)
        with pytest.raises(ValueError, match="offset must be 0 or more"):
            list_runs(store, offset=-1)


def test_a_run_page_reads_an_index_on_sqlite(store_backend: Backend) -> None:
    if store_backend.name != "sqlite":
        pytest.skip("the query plans asked about are SQLite's")
    with store_backend.open() as store:
        _run(store, "a", 3, started_at="2026-11-25T09:00:00Z")
    for where, index in (
        ("run_id = 'a' AND claim_id = 'x' AND seq > 0", "rows_run_claim"),
        ("run_id = 'a' AND status = 'fail' AND seq > 0", "rows_run_status"),
    ):
        plan = store_backend.query(
            f"EXPLAIN QUERY PLAN SELECT * FROM rows WHERE {where} ORDER BY seq LIMIT 5"
        )
        text = " ".join(str(step[-1]) for step in plan)
        assert index in text and "TEMP B-TREE" not in text, text
    plan = store_backend.query(
        "EXPLAIN QUERY PLAN SELECT * FROM rows WHERE run_id = 'a' AND case_id = 'c'"
    )
    assert "rows_run_case" in str(plan)


_BROWSE_INDEXES = {
    "rows_run_claim",
    "rows_run_status",
    "rows_run_case",
    "runs_started",
    "runs_contract_started",
}


def test_a_version_3_store_gains_the_browsing_indexes_and_keeps_its_chain(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        _run(store, "a", 12, started_at="2026-11-25T09:00:00Z")
    # As a verifier from before browsing left it: no browsing indexes, version 3.
    drops = [f"DROP INDEX {name}" for name in sorted(_BROWSE_INDEXES)]
    if store_backend.name == "sqlite":
        store_backend.tamper(*drops, "UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        indexes = "SELECT name FROM sqlite_master WHERE type = 'index'"
    else:
        # ... nor the table of sharded runs, which came after it.
        store_backend.tamper(
            *drops, "DROP TABLE run_shards", "DELETE FROM schema_version WHERE version > 3"
        )
        indexes = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
    assert not _BROWSE_INDEXES & {name for (name,) in store_backend.query(indexes)}
    with store_backend.open() as store:
        assert audit_store(store).ok
        assert [row.seq for row in run_results(store, "a", claim="claim-1").items] == [1, 7, 10]
    assert {name for (name,) in store_backend.query(indexes)} >= _BROWSE_INDEXES


def test_text_with_characters_json_escapes_is_found_in_the_reason(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "a", started_at="2026-11-25T09:00:00Z")
        reasons = ['the judge said "Yes"', "a back\\slash", "a tab\there", "plain words"]
        store.append([draft(n, "a", reason=text) for n, text in enumerate(reasons, start=1)])
        for needle, seq in (('said "yes', 1), ("back\\sl", 2), ("tab\th", 3), ("PLAIN", 4)):
            assert [row.seq for row in run_results(store, "a", text=needle).items] == [seq]


def test_a_text_search_takes_wildcards_literally_and_ignores_ascii_case(
    store_backend: Backend,
) -> None:
    reasons = ["50% done", "500 done", "a_b here", "aXb here", "MiXeD Case", "Été fini"]
    # Letters beyond ASCII are folded as the backend's lower() folds them: not asked.
    with store_backend.open() as store:
        begin(store, "w", started_at="2026-11-25T09:00:00Z")
        store.append([draft(n, "w", reason=r) for n, r in enumerate(reasons, start=1)])

        def found(text: str) -> list[str]:
            return [row.reason for row in run_results(store, "w", text=text).items]

        assert found("50%") == ["50% done"]
        assert found("a_b") == ["a_b here"]
        assert found("mixed case") == found("MIXED CASE") == ["MiXeD Case"]
        assert found("fini") == found("t\u00e9 fini") == ["Été fini"]
