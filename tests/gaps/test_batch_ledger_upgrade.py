"""A store whose judge batches were kept one per run and judge: opened by a version that
keeps many, it keeps every recorded batch (a waiting run can still be resumed)."""

from __future__ import annotations

from tests.gaps._backends import Backend
from verifier.judge.batch import BatchLedger, BatchRecord

_OLD_TABLE = (
    "CREATE TABLE judge_batches (run_id TEXT NOT NULL, judge TEXT NOT NULL,"
    " batch_id TEXT NOT NULL, status TEXT NOT NULL, items TEXT NOT NULL,"
    " PRIMARY KEY (run_id, judge))"
)


def test_a_ledger_of_one_batch_per_judge_is_upgraded_in_place(store_backend: Backend) -> None:
    store_backend.open().close()
    store_backend.tamper(
        _OLD_TABLE,
        (
            "INSERT INTO judge_batches VALUES (?, ?, ?, ?, ?)",
            ("run-1", "strict", "msgbatch_old", "submitted", '{"j1": {"cache_key": "k1"}}'),
        ),
    )
    ledger = BatchLedger(store_backend.target)
    try:
        old = ledger.batches("run-1", "strict")
        ledger.record(BatchRecord("run-1", "msgbatch_new", "strict", {"j2": {}}, seq=1))
    finally:
        ledger.close()
    assert old == [BatchRecord("run-1", "msgbatch_old", "strict", {"j1": {"cache_key": "k1"}})]
    again = BatchLedger(store_backend.target)  # upgraded once: opening again changes nothing
    try:
        assert [r.batch_id for r in again.batches("run-1", "strict")] == [
            "msgbatch_old",
            "msgbatch_new",
        ]
    finally:
        again.close()
