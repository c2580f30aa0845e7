"""The background checkpoints keep a SQLite store's write-ahead log from growing without bound."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.gaps._support import begin, draft
from verifier.analyses.audit import audit_store
from verifier.gaps.sqlite import wal_checkpoint as _wal_checkpoint
from verifier.gaps.sqlite.store import SqliteStore


def _wal_bytes(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def test_a_wal_past_its_limit_is_emptied_while_the_store_stays_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PASSIVE checkpoints alone never shrink the file; past the limit it is truncated.
    monkeypatch.setattr(_wal_checkpoint, "TRUNCATE_FRAMES", 4)
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store)
        drafts = [draft(n) for n in range(1, 201)]
        for start in range(0, len(drafts), 20):
            store.append(drafts[start : start + 20])
        assert _wal_bytes(path) > 0
        deadline = time.monotonic() + 30
        while _wal_bytes(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _wal_bytes(path) == 0
        # Appends after the truncation go on, and nothing was lost.
        store.append([draft(201)])
        report = audit_store(store)
    assert report.ok and report.chain_rows == 201


def test_below_the_limit_the_wal_is_left_to_passive_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        begin(store)
        store.append([draft(n) for n in range(1, 21)])
        time.sleep(0.5)  # a checkpoint has had time to run
        assert _wal_bytes(path) > 0
