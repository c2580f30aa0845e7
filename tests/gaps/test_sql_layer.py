"""The SQL both stores share (``verifier.gaps.sql``) and the side tables' one helper
(``verifier.gaps.side_tables``), on both backends."""

from __future__ import annotations

import pytest

from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft
from verifier.gaps.resamples import ResampleRow, ResampleStore
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.gaps.sql import POSTGRES, SQLITE, json_object
from verifier.gaps.store import StoreError

_NOTES = TableSpec.numbered("notes", " body TEXT NOT NULL)")


def _resample(agreed: bool = True) -> ResampleRow:
    return ResampleRow(
        "2026-11-28T00:00:00Z", "rs-1", "r1", 0, "c", "case-1", "tone", "m", "m",
        "p" * 64, "s" * 64, "pass", "pass" if agreed else "fail", agreed,
    )  # fmt: skip


def test_each_dialect_writes_its_own_parameter_marker() -> None:
    statement = "SELECT 1 FROM runs WHERE run_id = ? AND status = ?"
    assert SQLITE.sql(statement) == statement
    assert POSTGRES.sql(statement) == "SELECT 1 FROM runs WHERE run_id = %s AND status = %s"


@pytest.mark.parametrize("text", ['{"a": 1', "[1, 2]", None, "3"])
def test_an_unreadable_or_non_object_json_column_reads_as_empty(text: str | None) -> None:
    assert json_object(text) == {}


def test_runs_started_at_one_instant_list_in_the_order_they_began(
    store_backend: Backend,
) -> None:
    with store_backend.open() as store:
        for run_id in ("zeta", "alpha", "mid"):
            begin(store, run_id, started_at="2026-11-25T10:00:00Z")
        assert [r.run_id for r in store.runs()] == ["zeta", "alpha", "mid"]
        assert [r.run_id for r in store.recent_runs()] == ["mid", "alpha", "zeta"]
        assert [r.run_id for r in store.recent_runs(limit=None, offset=1)] == ["alpha", "zeta"]
        assert store.last_run() is not None and store.last_run().run_id == "mid"  # type: ignore[union-attr]


def test_appending_to_a_run_not_begun_names_it_and_writes_nothing(store_backend: Backend) -> None:
    with store_backend.open() as store:
        begin(store, "run-1")
        with pytest.raises(StoreError, match="run ghost has not begun"):
            store.append([draft(1), draft(2, run_id="ghost")])
        assert list(store.iter_rows()) == []


def test_a_copied_resample_counts_once_per_seal(store_backend: Backend) -> None:
    with ResampleStore(store_backend.target) as resamples:
        resamples.save([_resample()])
    store_backend.tamper(
        ("INSERT INTO resamples (created_at, resample_id, run_id, seed, contract_id, case_id,"
         " claim_id, model_id, requested_model, prompt_sha, sampling_sha, stored_status,"
         " resampled_status, agreed) SELECT created_at, resample_id, run_id, seed,"
         " contract_id, case_id, claim_id, model_id, requested_model, prompt_sha,"
         " sampling_sha, stored_status, resampled_status, agreed FROM resamples", ()),
    )  # fmt: skip
    with ResampleStore(store_backend.target, read_only=True) as resamples:
        assert len(resamples.all()) == 2
        triple = {"prompt_sha": "p" * 64, "sampling_sha": "s" * 64}
        assert resamples.measured(contract_id="c", claim_id="tone", model="m", **triple) == 1


def test_side_table_records_and_seals_on_each_backend(store_backend: Backend) -> None:
    db = SideTables.open(store_backend.target, _NOTES, error=StoreError)
    try:
        assert db.insert_sealed(["body"], [("one",), ("two",), ("one",)]) == 3
        store_backend.tamper(("UPDATE notes SET body = 'edited' WHERE body = 'two'", ()))
        found = db.records(["body"], where="body <> ?", params=("none",), order="id")
        assert [r["body"] for r in found] == ["one", "edited", "one"]
        assert db.sealed(found, each_seal_once=True) == [True, False, True]
        assert db.columns() == {"id", "body"}
        assert db.has_table("notes") and not db.has_table("no_such_table")
    finally:
        db.close()


def test_a_side_table_not_made_yet_has_no_records(store_backend: Backend) -> None:
    with store_backend.open():
        pass
    db = SideTables.open(store_backend.target, _NOTES, error=StoreError, read_only=True)
    try:
        assert db.records(["body"]) == []
        assert db.sealed([]) == []
    finally:
        db.close()
