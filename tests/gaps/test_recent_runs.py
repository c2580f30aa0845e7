"""Listing runs newest first, naming them ``last``/``last~N``, and telling a run being
written from one stopped without its end (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, finish
from verifier.gaps.run_refs import parse_reference
from verifier.gaps.store import StoreError, resolve_run_id


def test_recent_runs_are_newest_first_filtered_and_paged(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "r1", started_at="2026-11-25T10:00:00.000001Z")
        begin(store, "o1", started_at="2026-11-25T11:00:00.000001Z", contract_id="other")
        begin(store, "r2", started_at="2026-11-25T12:00:00.000001Z")
        # Started at the same instant: the one begun later is the newer.
        begin(store, "r3", started_at="2026-11-25T12:00:00.000001Z")
        for run_id in ("r1", "o1", "r2", "r3"):
            finish(store, run_id)
        ids = [r.run_id for r in store.recent_runs()]
        assert ids == ["r3", "r2", "o1", "r1"]
        assert store.last_run() is not None and store.last_run().run_id == ids[0]  # type: ignore[union-attr]
        assert [r.run_id for r in store.recent_runs(contract_id="demo")] == ["r3", "r2", "r1"]
        assert [r.run_id for r in store.recent_runs(limit=2, offset=1)] == ["r2", "o1"]
        assert store.recent_runs(contract_id="nobody") == []

        assert resolve_run_id(store, "last") == "r3"
        assert resolve_run_id(store, "last~2") == "o1"
        assert resolve_run_id(store, "last~1", contract_id="demo") == "r2"
        assert resolve_run_id(store, "last~0", contract_id="other") == "o1"
        assert resolve_run_id(store, "r1") == "r1"  # a run id is itself
        with pytest.raises(StoreError, match=r"^last~5: only 4 runs stored in "):
            resolve_run_id(store, "last~5")
        with pytest.raises(StoreError, match=r"^last~1: only 1 run of contract other stored"):
            resolve_run_id(store, "last~1", contract_id="other")
        with pytest.raises(StoreError, match="not a run: write a run id, last, or last~N"):
            resolve_run_id(store, "last~one")


def test_an_empty_store_has_no_last_run(store_backend: Backend) -> None:
    with store_backend.open() as store:
        assert store.recent_runs() == []
        with pytest.raises(StoreError, match=r"^last: no runs stored in "):
            resolve_run_id(store, "last")


@pytest.mark.parametrize("run_id", ["last", "last~1", "last~", "last~x"])
def test_no_run_can_be_called_like_a_reference(store_backend: Backend, run_id: str) -> None:
    with store_backend.open() as store:
        with pytest.raises(StoreError, match="is reserved: last and last~N name the newest"):
            begin(store, run_id)
        assert store.recent_runs() == []


@pytest.mark.parametrize(
    ("text", "back"),
    [("last", 0), ("last~0", 0), ("last~12", 12), ("lastly", None), ("20261126T1-ab", None)],
)
def test_references_are_read_exactly(text: str, back: int | None) -> None:
    assert parse_reference(text) == back


@pytest.mark.parametrize("text", ["last~", "last~-1", "last~1\n", "last~1.5", "last~ 2"])
def test_a_malformed_reference_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a run"):
        parse_reference(text)


def test_a_run_is_written_only_while_a_writer_holds_it(store_backend: Backend) -> None:
    with store_backend.open() as writer, store_backend.open() as reader:
        begin(writer, "r1")
        assert writer.run_written("r1") and reader.run_written("r1")
        finish(writer, "r1")
        assert not reader.run_written("r1")
        begin(writer, "r2")
    # The writer closed without recording the end (as a killed process would).
    with store_backend.open() as reader:
        record = reader.run("r2")
        assert record is not None and record.status == "running"
        assert not reader.run_written("r2")
        assert not reader.run_written("never-begun")
