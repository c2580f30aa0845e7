"""Judge batches and calibrations kept beside the rows, in SQLite and in PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compare.test_calibrate_cli import KEY
from tests.compare.test_calibrate_cli import verifier as cli
from tests.compare.test_calibration_store import BINARY_PROMPT, CONTRACT, calibration
from tests.conftest import FIXTURES
from tests.gaps._backends import Backend
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.compare.calibration_report import CalibrationReport, ClaimCalibration
from verifier.compare.calibration_store import CalibrationStore
from verifier.judge.batch import BatchLedger, BatchRecord

CASES = FIXTURES / "calibrate" / "replies.cases.jsonl"
LABELS = FIXTURES / "calibrate" / "labels.jsonl"


def report(*claims: ClaimCalibration) -> CalibrationReport:
    return CalibrationReport(
        run_id="run-1",
        labels_path="labels.jsonl",
        labels_sha256="f" * 64,
        labels=len(claims),
        claims=claims,
        unmatched=(),
    )


def test_calibrations_round_trip_on_each_backend(store_backend: Backend) -> None:
    with CalibrationStore(store_backend.target) as store:
        saved = store.save(
            report(calibration("no_guessing", n=24, kappa=0.75)), created_at="2026-11-26T01:00:00Z"
        )
        store.save(report(calibration("no_guessing", n=30, kappa=0.8)))
        assert saved == 1
    with CalibrationStore(store_backend.target, read_only=True) as store:
        latest = store.latest(
            contract_id="support-replies",
            claim_id="no_guessing",
            model="claude-haiku-4-5-20251001",
            prompt_sha=BINARY_PROMPT,
            sampling_sha=calibration("x", n=1, kappa=None).sampling_sha,
        )
        assert latest is not None and latest.n == 30 and latest.kappa == pytest.approx(0.8)
        assert [c.n for c in store.all()] == [24, 30]
        assert store.all()[0].created_at == "2026-11-26T01:00:00Z"


def test_reading_calibrations_of_a_store_without_any_creates_nothing(
    store_backend: Backend,
) -> None:
    store_backend.open().close()  # the store exists, its calibrations table does not
    with CalibrationStore(store_backend.target, read_only=True) as store:
        assert store.all() == []
        found = store.latest(
            contract_id="c", claim_id="x", model="m", prompt_sha="p", sampling_sha="s"
        )
        assert found is None


def test_the_batch_ledger_records_replaces_and_marks_on_each_backend(
    store_backend: Backend,
) -> None:
    items = {"j1": {"key": "k1"}}
    ledger = BatchLedger(store_backend.target)
    try:
        assert ledger.batches("run-1", "strict") == []
        ledger.record(BatchRecord("run-1", "msgbatch_1", "strict", items))
        ledger.record(BatchRecord("run-1", "msgbatch_2", "strict", items))
        ledger.record(BatchRecord("run-1", "msgbatch_3", "strict", {"j2": {}}, seq=1))
        ledger.mark(BatchRecord("run-1", "msgbatch_2", "strict", items), "ended")
    finally:
        ledger.close()
    again = BatchLedger(store_backend.target)  # a resumed run opens it anew
    try:
        found = again.batches("run-1", "strict")
    finally:
        again.close()
    assert found == [
        BatchRecord("run-1", "msgbatch_2", "strict", items, 0, "ended"),
        BatchRecord("run-1", "msgbatch_3", "strict", {"j2": {}}, 1, "submitted"),
    ]


def test_calibrate_then_check_against_a_postgresql_store(postgres_url: str, tmp_path: Path) -> None:
    with MessagesServer(default=brain) as server:
        run = cli(
            tmp_path,
            "run", str(CONTRACT), "--cases", str(CASES), "--store", postgres_url,
            base_url=server.base_url,
        )  # fmt: skip
    assert run.returncode == 1, run.stderr
    before = cli(tmp_path, "check", str(CONTRACT), "--store", postgres_url)
    assert before.returncode == 0, before.stderr
    assert sum("has no calibration" in line for line in before.stdout.splitlines()) == 2
    calibrated = cli(tmp_path, "calibrate", "--labels", str(LABELS), "--store", postgres_url)
    assert calibrated.returncode == 0, calibrated.stderr
    assert "stored 2 calibrations in postgresql://" in calibrated.stderr
    assert KEY not in calibrated.stderr + calibrated.stdout
    after = cli(tmp_path, "check", str(CONTRACT), "--store", postgres_url)
    warnings = [line for line in after.stdout.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "7 labelled cases only" in warnings[0], after.stdout


def test_a_batch_run_into_a_postgresql_store(postgres_url: str, tmp_path: Path) -> None:
    import psycopg

    out = tmp_path / "report.json"
    with MessagesServer(default=brain, batch_polls=1) as server:
        server.script(b.errored("the item was rejected"))
        run = cli(
            tmp_path,
            "run", str(CONTRACT), "--cases", str(CASES), "--store", postgres_url,
            "--batch", "--batch-poll", "0.05", "--format", "json", "--out", str(out),
            base_url=server.base_url,
        )  # fmt: skip
        assert run.returncode == 1, run.stderr
        assert server.model_calls() == []  # every verdict came through the batch
    results = [r for c in json.loads(out.read_text())["cases"] for r in c["results"]]
    assert any("batch item failed" in r["reasoning"] for r in results)
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT batch_id, status FROM judge_batches").fetchall()
    assert len(rows) == 1 and rows[0][0] and rows[0][1] == "ended"
    audit = cli(tmp_path, "audit", "--store", postgres_url)
    assert audit.returncode == 0, audit.stdout + audit.stderr
