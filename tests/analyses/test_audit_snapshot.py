"""The audit reads one snapshot of a store while other processes write it.

A writer process (``tests/gaps/_live_writer.py``) begins, appends to, interrupts,
resumes and ends runs, honestly, the whole time; every audit meanwhile must say ok,
show the runs still being written as in flight, and name the head of what it read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.gaps._backends import Backend
from tests.gaps._live_writer import CACHE_KEY, cache_entry, start
from tests.gaps._support import begin, draft, finish
from verifier.analyses.audit import audit_store
from verifier.analyses.history import audit_history
from verifier.gaps.store import open_store
from verifier.llm.replies import store_cache_for
from verifier.recheck import recheck_store

AUDITING_S = 3.0


@pytest.fixture
def writer(store_backend: Backend, tmp_path: Path) -> Iterator[Backend]:
    """The store, with a process writing runs into it until the test ends."""
    stop = tmp_path / "stop"
    process = start(store_backend.target, stop)
    try:
        yield store_backend
    finally:
        stop.touch()
        out, _ = process.communicate(timeout=30)
    assert process.returncode == 0 and out.startswith("wrote "), out


@pytest.mark.e2e
def test_every_audit_while_runs_are_written_is_ok_and_names_the_runs_in_flight(
    writer: Backend,
) -> None:
    audits, in_flight = 0, 0
    deadline = time.monotonic() + AUDITING_S
    while time.monotonic() < deadline or audits < 5:
        with open_store(writer.target) as store:
            report = audit_history(store).integrity
        assert report.ok, [p.message for p in report.problems]
        # The head is that of the rows read: its last seal records the last row.
        assert report.head_rows == report.chain_rows
        audits += 1
        in_flight += bool(report.in_flight)
    assert in_flight, f"none of {audits} audits caught a run being written"


@pytest.mark.e2e
def test_the_audit_command_while_runs_are_written_holds_a_published_head(
    writer: Backend, tmp_path: Path
) -> None:
    with open_store(writer.target) as store:
        published = store.head()
    assert published is not None
    done = verifier(
        "audit",
        "--store",
        writer.target,
        "--format",
        "json",
        "--expect-head",
        published.seal_hash,
        cwd=tmp_path,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0, report["problems"]
    assert report["expected_head_at"] == published.n
    assert report["head"] is not None and report["in_flight"] is not None


@pytest.mark.e2e
def test_a_recheck_while_runs_are_written_names_the_head_of_the_rows_it_read(
    writer: Backend,
) -> None:
    with open_store(writer.target) as store:
        report = recheck_store(store, target=writer.target)
        assert report.ok
        sealed = next(s for s in store.iter_seals() if s.seal_hash == report.head)
    assert json.loads(sealed.body)["rows"]["seq"] == report.rows
    assert f"head: {report.head} (the store as rechecked)" in report.lines()


def test_writes_after_a_snapshot_began_are_not_part_of_it(store_backend: Backend) -> None:
    with store_backend.open() as store, store_backend.open() as other:
        begin(other, "before")
        other.append([draft(n, "before") for n in range(1, 7)])
        finish(other, "before")
        with store.snapshot():
            head = store.head()
            begin(other, "after")
            other.append([draft(n, "after") for n in range(1, 7)])
            seen = [r.run_id for r in store.runs()]
            report = audit_store(store)
            assert store.head() == head
            assert [r.run_id for r in store.iter_rows()] == ["before"] * 6
        assert seen == ["before"]
        assert report.ok and report.chain_rows == 6 and report.in_flight == []
        assert head is not None and report.head == head.seal_hash
        after = audit_store(store)
        assert after.ok and after.chain_rows == 12 and after.in_flight == ["after"]
        assert "in flight: 1 run(s) still running (after)" in after.render_text()


@pytest.mark.e2e
def test_a_judge_cache_entry_answered_again_meanwhile_is_never_taken_for_an_edited_one(
    store_backend: Backend, tmp_path: Path
) -> None:
    cache = store_cache_for(store_backend.target)
    cache.put(cache_entry(-1))
    stop = tmp_path / "stop"
    process = start(store_backend.target, stop, cache=True)
    try:
        reads, refused = 0, 0
        deadline = time.monotonic() + AUDITING_S
        while time.monotonic() < deadline:
            reads += 1
            refused += cache.get(CACHE_KEY) is None
    finally:
        stop.touch()
        out, _ = process.communicate(timeout=30)
        cache.close()
    assert out.startswith("wrote "), out
    # Each entry was sealed as it was written: none may read as edited.
    assert refused == 0, f"{refused} of {reads} reads refused an honest entry"
