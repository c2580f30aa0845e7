"""What every gap store does, on SQLite and on PostgreSQL alike (``store_backend``):
runs, appends, streaming reads, and two processes appending to one store at once."""

from __future__ import annotations

import itertools
import multiprocessing
import tracemalloc
from typing import Any

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import CONTRACT_SHA, CONTRACT_SOURCE, begin, draft, fill, finish
from verifier.analyses.audit import audit_store
from verifier.gaps.chain import GENESIS, ChainError, verify_link
from verifier.gaps.store import GapStore, StoreError, open_store


def test_appended_rows_read_back_in_seq_order_as_one_chain(store_backend: Backend) -> None:
    with store_backend.open() as store:
        fill(store, rows=30)
        rows = list(store.iter_rows())
    assert [r.seq for r in rows] == list(range(1, 31))
    assert [r.row_id for r in rows] == [f"run-1-row-{n}" for n in range(1, 31)]
    prev = GENESIS
    for row in rows:
        assert row.prev_hash == prev and verify_link(prev, row.body, row.row_hash)
        prev = row.row_hash


def test_iter_rows_of_one_run_keeps_the_store_wide_seqs(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "a")
        begin(store, "b")
        store.append([draft(1, "a"), draft(2, "b"), draft(3, "a"), draft(4, "b")])
        assert [r.seq for r in store.iter_rows("b")] == [2, 4]
        assert [r.seq for r in store.iter_rows("a")] == [1, 3]
        assert list(store.iter_rows("nobody")) == []


def _peak_bytes_reading(store: GapStore, rows: int) -> int:
    tracemalloc.start()
    count = sum(1 for _ in store.iter_rows())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == rows
    return peak


def test_iter_rows_memory_does_not_grow_with_the_number_of_rows(store_backend: Backend) -> None:
    padding = "x" * 1000
    with store_backend.open() as store:
        begin(store)
        for start in range(0, 25_000, 1000):
            store.append([draft(n, reason=padding) for n in range(start, start + 1000)])
            if start + 1000 == 5_000:
                small = _peak_bytes_reading(store, 5_000)
        large = _peak_bytes_reading(store, 25_000)  # ~40 MB of rows
    assert large < small * 1.5


def test_a_failed_append_writes_nothing(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store)
        store.append([draft(1)])
        with pytest.raises(ChainError):
            store.append([draft(2), {**draft(3), "seq": 3}])
        assert [r.seq for r in store.iter_rows()] == [1]


def test_a_bad_draft_deep_in_a_large_append_writes_nothing(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store)
        drafts = [draft(n) for n in range(1, 1201)]
        drafts[1100] = {**drafts[1100], "row_hash": "f" * 64}
        with pytest.raises(ChainError):
            store.append(drafts)
        assert list(store.iter_rows()) == []
        store.append(drafts[:3])
        assert [r.seq for r in store.iter_rows()] == [1, 2, 3]


@pytest.mark.parametrize("state", ["never begun", "finished"])
def test_rows_append_only_to_a_running_run(store_backend: Backend, state: str) -> None:
    with store_backend.open() as store:
        if state == "finished":
            begin(store)
            finish(store)
        with pytest.raises(StoreError, match="cannot append rows: run run-1"):
            store.append([draft(1)])


def test_begin_run_keeps_the_contract_source_to_rerun_any_row(store_backend: Backend) -> None:
    with store_backend.open() as store:
        fill(store, rows=2)
        row = next(store.iter_rows())
        run = store.run(row.run_id)
        assert run is not None and run.contract_sha256 == CONTRACT_SHA
        contract = store.contract(run.contract_sha256)
        assert contract is not None
        assert contract.source == CONTRACT_SOURCE and contract.path == "contracts/demo.yaml"
        assert run.options == {"judges": "replay"}


def test_begin_run_refuses_a_source_that_does_not_match_its_hash(store_backend: Backend) -> None:
    with (
        store_backend.open() as store,
        pytest.raises(ValueError, match="does not hash"),
    ):
        store.begin_run(
            "r",
            contract_id="demo",
            contract_version=3,
            contract_sha256=CONTRACT_SHA,
            contract_path="c.yaml",
            contract_source=CONTRACT_SOURCE.replace("\n", "\r\n"),
            started_at="2026-11-25T10:00:00Z",
            options={},
        )


def test_an_interrupted_run_resumes_but_a_finished_one_does_not(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store)
        store.append([draft(1)])
        store.finish_run(
            "run-1", status="interrupted", finished_at="2026-11-25T10:01:00Z", summary={}
        )
        begin(store, started_at="2026-11-25T11:00:00Z")
        run = store.run("run-1")
        assert run is not None and run.status == "running" and run.finished_at is None
        assert run.started_at == "2026-11-25T10:00:00Z"
        store.append([draft(2)])
        finish(store)
        with pytest.raises(StoreError, match="already finished"):
            begin(store)
        assert audit_store(store).ok


def test_finish_run_records_the_runs_row_count_and_last_row(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "a")
        begin(store, "b")
        store.append([draft(1, "a"), draft(2, "b"), draft(3, "a")])
        store.finish_run(
            "a", status="finished", finished_at="2026-11-25T10:05:00Z", summary={"total_cases": 2}
        )
        store.finish_run("b", status="interrupted", finished_at="2026-11-25T10:05:00Z", summary={})
        last = list(store.iter_rows("a"))[-1]
        run_a, run_b = store.run("a"), store.run("b")
    assert run_a is not None and run_b is not None
    assert run_a.status == "finished" and run_a.summary["total_cases"] == 2
    assert run_a.summary["chain"] == {"rows": 2, "last_seq": 3, "last_hash": last.row_hash}
    assert run_b.status == "interrupted" and run_b.summary["chain"]["rows"] == 1


def test_finish_run_refuses_running_as_an_end_state(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store)
        with pytest.raises(ValueError, match="finished or interrupted"):
            store.finish_run("run-1", status="running", finished_at="x", summary={})  # type: ignore[arg-type]


def test_runs_are_listed_oldest_first_and_last_run_is_the_newest(store_backend: Backend) -> None:
    with store_backend.open() as store:
        assert store.runs() == [] and store.last_run() is None
        begin(store, "late", started_at="2026-11-25T12:00:00Z")
        begin(store, "early", started_at="2026-11-25T09:00:00Z")
        assert [r.run_id for r in store.runs()] == ["early", "late"]
        last = store.last_run()
        assert last is not None and last.run_id == "late"


def _append_from_another_process(target: str, run_id: str, batches: int, step: Any) -> None:
    with open_store(target) as store:
        for b in range(batches):
            # Both processes append each batch at the same moment: they contend for the
            # chain every time, however the machine schedules them, and neither can
            # finish all its batches before the other has begun.
            step.wait(60)
            store.append([draft(b * 10 + n, run_id) for n in range(10)])


@pytest.mark.e2e
def test_two_processes_appending_to_one_store_build_one_valid_chain(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        begin(store, "p1")
        begin(store, "p2")
    context = multiprocessing.get_context("spawn")
    step = context.Barrier(2)
    workers = [
        context.Process(
            target=_append_from_another_process, args=(store_backend.target, run, 100, step)
        )
        for run in ("p1", "p2")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    with store_backend.open() as store:
        rows = list(store.iter_rows())
        report = audit_store(store)
    runs = [r.run_id for r in rows]
    assert [r.seq for r in rows] == list(range(1, 2001))
    assert runs.count("p1") == runs.count("p2") == 1000
    assert report.ok, report.render_text()
    # The batches interleaved: the writers really did contend for the chain.
    assert sum(1 for a, b in itertools.pairwise(runs) if a != b) > 1


@pytest.mark.parametrize("count", [1, 499, 500, 1000, 1003])
def test_large_appends_store_every_row_exactly_as_sealed(
    store_backend: Backend, count: int
) -> None:
    from verifier.gaps.chain import seal

    drafts = [draft(n, case_id=f"case-é{n}") for n in range(1, count + 1)]
    with store_backend.open() as store:
        begin(store)
        store.append(drafts[:2])
        store.append(drafts[2:])
        stored = list(store.iter_rows())
    expected = seal(drafts[:2], 0, GENESIS)
    expected += seal(drafts[2:], expected[-1].seq, expected[-1].row_hash)
    assert stored == expected[:count]
