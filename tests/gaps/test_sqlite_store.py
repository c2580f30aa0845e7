"""The SQLite gap store: runs, appends, streaming reads, errors, concurrent writers."""

from __future__ import annotations

import itertools
import multiprocessing
import sqlite3
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.gaps._support import CONTRACT_SHA, CONTRACT_SOURCE, begin, draft, filled_store, finish
from verifier.errors import VerifierError
from verifier.gaps.audit import audit_store
from verifier.gaps.chain import GENESIS, ChainError, verify_link
from verifier.gaps.sqlite import SqliteStore
from verifier.gaps.store import StoreError, open_store


def test_store_creates_its_folders_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "gaps.db"
    with SqliteStore(path):
        pass
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"rows", "runs", "contracts", "meta"}
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("1",)


def test_appended_rows_read_back_in_seq_order_as_one_chain(tmp_path: Path) -> None:
    with filled_store(tmp_path / "gaps.db", rows=30) as store:
        rows = list(store.iter_rows())
    assert [r.seq for r in rows] == list(range(1, 31))
    assert [r.row_id for r in rows] == [f"run-1-row-{n}" for n in range(1, 31)]
    prev = GENESIS
    for row in rows:
        assert row.prev_hash == prev and verify_link(prev, row.body, row.row_hash)
        prev = row.row_hash


def test_iter_rows_of_one_run_keeps_the_store_wide_seqs(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store, "a")
        begin(store, "b")
        store.append([draft(1, "a"), draft(2, "b"), draft(3, "a"), draft(4, "b")])
        assert [r.seq for r in store.iter_rows("b")] == [2, 4]
        assert [r.seq for r in store.iter_rows("a")] == [1, 3]
        assert list(store.iter_rows("nobody")) == []


def _peak_bytes_reading(path: Path, rows: int) -> int:
    with SqliteStore(path) as store:
        begin(store)
        padding = "x" * 1000
        for start in range(0, rows, 1000):
            store.append([draft(n, reason=padding) for n in range(start, start + 1000)])
        tracemalloc.start()
        count = sum(1 for _ in store.iter_rows())
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert count == rows
    return peak


def test_iter_rows_memory_does_not_grow_with_the_number_of_rows(tmp_path: Path) -> None:
    small = _peak_bytes_reading(tmp_path / "small.db", 5_000)
    large = _peak_bytes_reading(tmp_path / "large.db", 25_000)  # ~40 MB of rows
    assert large < small * 1.5


def test_rows_cannot_be_updated_or_deleted_through_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    filled_store(path, rows=3).close()
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE rows SET status = 'pass'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM rows WHERE seq = 2")
    assert not hasattr(SqliteStore, "delete") and not hasattr(SqliteStore, "update")


def test_a_failed_append_writes_nothing(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        store.append([draft(1)])
        with pytest.raises(ChainError):
            store.append([draft(2), {**draft(3), "seq": 3}])
        assert [r.seq for r in store.iter_rows()] == [1]


@pytest.mark.parametrize("state", ["never begun", "finished"])
def test_rows_append_only_to_a_running_run(tmp_path: Path, state: str) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        if state == "finished":
            begin(store)
            finish(store)
        with pytest.raises(StoreError, match="cannot append rows: run run-1"):
            store.append([draft(1)])


def test_begin_run_keeps_the_contract_source_to_rerun_any_row(tmp_path: Path) -> None:
    with filled_store(tmp_path / "gaps.db", rows=2) as store:
        row = next(store.iter_rows())
        run = store.run(row.run_id)
        assert run is not None and run.contract_sha256 == CONTRACT_SHA
        contract = store.contract(run.contract_sha256)
        assert contract is not None
        assert contract.source == CONTRACT_SOURCE and contract.path == "contracts/demo.yaml"
        assert run.options == {"judges": "replay"}


def test_begin_run_refuses_a_source_that_does_not_match_its_hash(tmp_path: Path) -> None:
    with (
        SqliteStore(tmp_path / "gaps.db") as store,
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


def test_an_interrupted_run_resumes_but_a_finished_one_does_not(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
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


def test_finish_run_records_the_runs_row_count_and_last_row(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
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


def test_finish_run_refuses_running_as_an_end_state(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        with pytest.raises(ValueError, match="finished or interrupted"):
            store.finish_run("run-1", status="running", finished_at="x", summary={})  # type: ignore[arg-type]


def test_runs_are_listed_oldest_first_and_last_run_is_the_newest(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        assert store.runs() == [] and store.last_run() is None
        begin(store, "late", started_at="2026-11-25T12:00:00Z")
        begin(store, "early", started_at="2026-11-25T09:00:00Z")
        assert [r.run_id for r in store.runs()] == ["early", "late"]
        last = store.last_run()
        assert last is not None and last.run_id == "late"


def test_a_file_that_is_not_sqlite_is_a_one_line_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="is not a verifier gap store") as caught:
        SqliteStore(path)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, VerifierError)


def test_another_programs_sqlite_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a verifier gap store"):
        SqliteStore(path)
    assert path.read_bytes() == before


def test_a_store_from_a_newer_verifier_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 99, newer"):
        SqliteStore(path)


def test_a_corrupt_store_is_a_store_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    filled_store(path, rows=200).close()
    data = bytearray(path.read_bytes())
    data[4096:8192] = b"\xff" * 4096  # wreck the second page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError), SqliteStore(path) as store:
        list(store.iter_rows())


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        SqliteStore(tmp_path)


def test_open_store_takes_a_path_or_a_sqlite_url(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "a.db")) as store:
        assert store.location == str(tmp_path / "a.db")
    with open_store(f"sqlite:///{tmp_path / 'b.db'}") as store:
        assert Path(store.location) == tmp_path / "b.db"
    assert (tmp_path / "b.db").exists()


def test_open_store_explains_postgresql_without_echoing_the_url() -> None:
    with pytest.raises(StoreError, match="PostgreSQL stores need") as caught:
        open_store("postgresql://auditor:s3cret@db.example/gaps")
    assert "s3cret" not in str(caught.value)


def test_open_store_rejects_an_unknown_scheme() -> None:
    with pytest.raises(StoreError, match="unknown store scheme 'mysql'"):
        open_store("mysql://localhost/gaps")


def _append_from_another_process(path: str, run_id: str, batches: int, start: Any) -> None:
    with SqliteStore(path) as store:
        start.wait()  # both processes open the file, then write at the same moment
        for b in range(batches):
            store.append([draft(b * 10 + n, run_id) for n in range(10)])
            time.sleep(0.002)  # a runner checks the next chunk between appends


def test_two_processes_appending_to_one_file_build_one_valid_chain(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store, "p1")
        begin(store, "p2")
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(2)
    workers = [
        context.Process(target=_append_from_another_process, args=(str(path), run, 100, start))
        for run in ("p1", "p2")
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    with SqliteStore(path) as store:
        rows = list(store.iter_rows())
        report = audit_store(store)
    runs = [r.run_id for r in rows]
    assert [r.seq for r in rows] == list(range(1, 2001))
    assert runs.count("p1") == runs.count("p2") == 1000
    assert report.ok, report.render_text()
    # The batches interleaved: the writers really did contend for the file.
    assert sum(1 for a, b in itertools.pairwise(runs) if a != b) > 1


@pytest.mark.parametrize("count", [1, 499, 500, 1000, 1003])
def test_large_appends_store_every_row_exactly_as_sealed(tmp_path: Path, count: int) -> None:
    from verifier.gaps.chain import seal

    drafts = [draft(n, case_id=f"case-é{n}") for n in range(1, count + 1)]
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        store.append(drafts[:2])
        store.append(drafts[2:])
        stored = list(store.iter_rows())
    expected = seal(drafts[:2], 0, GENESIS)
    expected += seal(drafts[2:], expected[-1].seq, expected[-1].row_hash)
    assert stored == expected[:count]


def test_a_low_sqlite_parameter_limit_shrinks_the_multi_row_insert(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        store._conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
        from verifier.gaps.sqlite import _rows_per_insert

        assert _rows_per_insert(store._conn) == 999 // 12


def test_appends_are_checkpointed_by_a_background_thread(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store)
        empty = path.stat().st_size
        padding = "x" * 1000
        store.append([draft(n, reason=padding) for n in range(1, 2001)])
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
        conn.close()
        # Automatic checkpoints are off for the appending connection, so only the
        # thread can move the rows from the WAL into the database file.
        deadline = time.monotonic() + 10
        while path.stat().st_size <= empty + 1_000_000 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert path.stat().st_size > empty + 1_000_000
        assert len(list(store.iter_rows())) == 2000
    assert not path.with_name("gaps.db-wal").exists()
    with SqliteStore(path) as store:
        assert audit_store(store).ok


def test_a_failed_checkpoint_thread_brings_back_automatic_checkpoints(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        begin(store)
        store.append([draft(1)])
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        assert store._checkpointer is not None
        store._checkpointer.failed = True
        store.append([draft(2)])
        store.append([draft(3)])
        assert store._checkpointer is None
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)
        assert [r.seq for r in store.iter_rows()] == [1, 2, 3]


def test_reading_a_store_starts_no_checkpoint_thread(tmp_path: Path) -> None:
    with filled_store(tmp_path / "gaps.db", rows=3):
        pass
    with SqliteStore(tmp_path / "gaps.db") as store:
        assert len(list(store.iter_rows())) == 3
        assert store._checkpointer is None
