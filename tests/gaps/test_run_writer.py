"""A run has one writer at a time: a second process resuming a run that is still being
written is refused before it writes anything, and a killed writer's run can be resumed
at once (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.gaps.audit import audit_store
from verifier.gaps.store import StoreError

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
            # connection); the server may take a moment to notice the dead client.
            for _ in range(100):
                try:
                    begin(second, "run-1")
                    break
                except StoreError:
                    time.sleep(0.1)
            else:
                pytest.fail("the killed writer's run stayed locked")
            second.append([draft(2, "run-1")])
            assert [row.seq for row in second.iter_rows("run-1")] == [1, 2]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
