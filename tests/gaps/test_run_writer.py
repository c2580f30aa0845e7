"""A run has one writer at a time: a second process resuming a run that is still being
written is refused before it writes anything, and a killed writer's run can be resumed
at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.analyses.audit import audit_store
from verifier.gaps.postgres.store import PostgresStore
from verifier.gaps.store import StoreError, open_store

ROOT = Path(__file__).resolve().parents[2]


def test_a_run_being_written_cannot_be_begun_again_until_it_ends(store_backend: Backend) -> None:
    with store_backend.open() as writer, store_backend.open() as second:
        begin(writer, "run-1")
        writer.append([draft(1, "run-1")])
        with pytest.raises(StoreError, match="still being written by another process"):
            begin(second, "run-1")
        writer.finish_run(
            "run-1", status="interrupted", finished_at="2026-11-25T10:05:00Z", summary={}
        )
        begin(second, "run-1")  # ended: the resume goes ahead
        second.append([draft(2, "run-1")])
        second.finish_run(
            "run-1", status="finished", finished_at="2026-11-25T10:06:00Z", summary={}
        )
        assert [row.seq for row in second.iter_rows("run-1")] == [1, 2]
        assert audit_store(second).ok


@pytest.mark.e2e
def test_a_killed_writers_run_can_be_resumed_at_once(store_backend: Backend) -> None:
    holder = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from tests.gaps._support import begin, draft
        from verifier.gaps.store import open_store
        store = open_store(sys.argv[1])
        begin(store, "run-1")
        store.append([draft(1, "run-1")])
        print("begun", flush=True)
        time.sleep(120)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder, store_backend.target],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "begun"
        with store_backend.open() as second:
            with pytest.raises(StoreError, match="still being written"):
                begin(second, "run-1")
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            # The lock died with the process (the kernel's, or the server's with the
            # connection, which begin_run waits a moment for).
            begin(second, "run-1")
            second.append([draft(2, "run-1")])
            assert [row.seq for row in second.iter_rows("run-1")] == [1, 2]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.mark.e2e
def test_a_writer_killed_mid_statement_is_waited_for_not_refused(postgres_url: str) -> None:
    """The server drops a killed writer's lock only when the statement it was running
    ends (here: waiting for the chain lock this test holds); a resume meanwhile waits
    for that instead of refusing a run nobody is writing."""
    import psycopg

    from verifier.gaps.postgres.conn import lock_key

    holder = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.gaps._support import begin, draft
        from verifier.gaps.store import open_store
        store = open_store(sys.argv[1])
        begin(store, "run-1")
        print("begun", flush=True)
        sys.stdin.readline()
        store.append([draft(1, "run-1")])  # waits on the server for the chain
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder, postgres_url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "begun"
        with psycopg.connect(postgres_url) as chain, open_store(postgres_url) as second:
            (schema,) = chain.execute("SELECT current_schema()").fetchone() or ("",)
            chain.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(schema, "chain"),))
            assert process.stdin is not None
            process.stdin.write("\n")
            process.stdin.flush()
            waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            with psycopg.connect(postgres_url, autocommit=True) as look:
                deadline = time.monotonic() + 30
                while look.execute(waiting).fetchone() != (1,):
                    assert time.monotonic() < deadline, "the append never waited for the chain"
                    time.sleep(0.01)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            # The dead writer's session lives on until the chain is let go.
            threading.Timer(0.5, chain.commit).start()
            started = time.monotonic()
            begin(second, "run-1")
            assert 0.4 < time.monotonic() - started < PostgresStore.WRITER_GONE_WAIT
            second.append([draft(2, "run-1")])
            assert [row.seq for row in second.iter_rows("run-1")] == [1]
            assert audit_store(second).ok
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
