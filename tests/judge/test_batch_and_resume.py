"""Message Batches round trips, resuming without resubmitting, and killed runs resumed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain
from tests.judge.messages_server import Gate, MessagesServer
from verifier.analyses.audit import audit_store
from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.gaps.sqlite.store import SqliteStore
from verifier.judge.batch import BatchLedger, run_batch_prepass
from verifier.judge.setup import make_judge_phase
from verifier.llm.limits import CallLimits

CONTRACT = FIXTURES / "judge_run" / "briefs.yaml"
CASES = FIXTURES / "judge_run" / "briefs.cases.jsonl"
KEY = "sk-ant-api03-batch-test-key-0123456789"


def env_for(server: MessagesServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CI"))}
    env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=server.base_url)
    return env


def batch_creations(server: MessagesServer) -> int:
    return sum(
        1 for r in server.requests if r.method == "POST" and r.path.endswith("/messages/batches")
    )


@pytest.mark.e2e
def test_batch_round_trip_with_an_errored_item(tmp_path: Path) -> None:
    with MessagesServer(default=brain, batch_polls=2) as server:
        server.script(b.errored("the item was rejected"))
        out = tmp_path / "report.json"
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "verifier",
                "run",
                str(CONTRACT),
                "--cases",
                str(CASES),
                "--batch",
                "--batch-poll",
                "0.05",
                "--store",
                str(tmp_path / "gaps.db"),
                "--format",
                "json",
                "--out",
                str(out),
            ],
            env=env_for(server),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert result.returncode == 1, result.stderr
        assert server.model_calls() == []  # everything went through the batch
        assert batch_creations(server) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    judged = [
        r
        for c in report["cases"]
        for r in c["results"]
        if r["id"] != "cites_sources" and r["status"] != "skipped"
    ]
    errors = [r for r in judged if r["status"] == "error"]
    assert len(errors) >= 1 and all("batch item failed" in r["reasoning"] for r in errors)
    assert [r for r in judged if r["status"] in ("pass", "fail")]
    db = sqlite3.connect(tmp_path / "gaps.db")
    ((batch_id, status),) = db.execute("SELECT batch_id, status FROM judge_batches").fetchall()
    db.close()
    assert batch_id and status == "ended"


class Interrupted(Exception):
    pass


def test_interrupted_batch_is_resumed_without_resubmitting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = load_contract(CONTRACT)
    with MessagesServer(default=brain, batch_polls=3) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        store_path = tmp_path / "gaps.db"
        SqliteStore(store_path).close()

        async def attempt(sleep) -> dict[str, str]:  # type: ignore[no-untyped-def]
            phase = make_judge_phase(
                loaded,
                plan=build_plan(loaded),
                mode="live",
                store_path=str(store_path),
                recordings=None,
                limits=CallLimits(),
                run_id="r1",
            )
            ledger = BatchLedger(store_path)
            try:
                return await run_batch_prepass(
                    phase,
                    read_cases(CASES),
                    ledger=ledger,
                    run_id="r1",
                    poll_interval=0.01,
                    sleep=sleep,
                )
            finally:
                ledger.close()
                await phase.aclose()

        async def killed(_: float) -> None:
            raise Interrupted

        with pytest.raises(Interrupted):
            asyncio.run(attempt(killed))
        assert batch_creations(server) == 1
        errors = asyncio.run(attempt(asyncio.sleep))
        assert errors == {}
        assert batch_creations(server) == 1  # polled again, never resubmitted
        assert server.model_calls() == []


def _rows(db_path: Path, run_id: str) -> list[tuple[str, str]]:
    db = sqlite3.connect(db_path)
    try:
        return db.execute(
            "SELECT case_id, claim_id FROM rows WHERE run_id = ?", (run_id,)
        ).fetchall()
    finally:
        db.close()


@pytest.mark.e2e
def test_killed_run_resumes_with_no_duplicate_rows(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    lines = [
        json.dumps({"id": f"c{i}", "input": "Brief.", "output": f"Fact {i} [source: CRM]."})
        for i in range(8)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = tmp_path / "gaps.db"
    # Calls about the first two cases are answered, the rest held until the kill: the
    # run is stopped part-way however fast or slow it and this poll loop happen to be.
    gate = Gate(brain)

    def first_two_only(request: dict[str, Any]) -> b.Behaviour:
        about = json.dumps(request["messages"])
        return brain(request) if "Fact 0 " in about or "Fact 1 " in about else gate(request)

    with MessagesServer(default=first_two_only) as server:
        args = [
            sys.executable,
            "-m",
            "verifier",
            "run",
            str(CONTRACT),
            "--cases",
            str(cases),
            "--store",
            str(store),
            "--concurrency",
            "1",
            "--chunk-size",
            "1",
        ]
        process = subprocess.Popen(
            args,
            env=env_for(server),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        deadline = time.monotonic() + 60
        run_id = None
        while time.monotonic() < deadline:
            time.sleep(0.1)
            if store.exists():
                try:
                    db = sqlite3.connect(store)
                    row = db.execute(
                        "SELECT run_id, COUNT(DISTINCT case_id) FROM rows GROUP BY run_id"
                    ).fetchone()
                    db.close()
                except sqlite3.Error:
                    continue
                if row and row[1] >= 2:
                    run_id = row[0]
                    break
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        gate.open()
        assert run_id is not None
        before = _rows(store, run_id)
        assert 0 < len({c for c, _ in before}) < 8
        calls_before = len(server.model_calls())
        out = tmp_path / "resumed.json"
        resumed = subprocess.run(
            [*args, "--resume", run_id, "--format", "json", "--out", str(out)],
            env=env_for(server),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert resumed.returncode == 0, resumed.stderr
        after = _rows(store, run_id)
        assert len(after) == len(set(after)) == 8 * 4
        # Stored cases were not judged again.
        assert len(server.model_calls()) - calls_before <= (8 - len({c for c, _ in before})) * 2
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["run_id"] == run_id and report["total_cases"] == 8
    with SqliteStore(store) as gap_store:
        assert audit_store(gap_store).ok
        record = gap_store.run(run_id)
        assert record is not None and record.status == "finished"


@pytest.mark.e2e
def test_resuming_a_finished_or_unknown_run_is_a_usage_error(tmp_path: Path) -> None:
    store = tmp_path / "gaps.db"
    base = [
        sys.executable,
        "-m",
        "verifier",
        "run",
        str(FIXTURES.parent.parent / "contracts" / "examples" / "data-extraction.yaml"),
        "--cases",
        str(FIXTURES.parent.parent / "contracts" / "examples" / "data-extraction.cases.jsonl"),
        "--store",
        str(store),
    ]
    subprocess.run(base, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    db = sqlite3.connect(store)
    (run_id,) = db.execute("SELECT run_id FROM runs").fetchone()
    db.close()
    for resume, fragment in ((run_id, "already finished"), ("nope", "not in")):
        result = subprocess.run(
            [*base, "--resume", resume], capture_output=True, text=True, timeout=60, cwd=tmp_path
        )
        assert (
            result.returncode == 2
            and fragment in result.stderr
            and "Traceback" not in result.stderr
        )


def _batches_polled(server: MessagesServer) -> int:
    return sum(
        1
        for r in server.requests
        if r.method == "GET" and "/messages/batches/" in r.path and not r.path.endswith("/results")
    )


@pytest.mark.e2e
def test_batch_run_killed_while_its_batch_is_polled_is_resumed_without_paying_again(
    tmp_path: Path,
) -> None:
    store = tmp_path / "gaps.db"
    base = [
        sys.executable, "-m", "verifier", "run", str(CONTRACT), "--cases", str(CASES),
        "--batch", "--batch-poll", "0.05", "--store", str(store),
    ]  # fmt: skip
    # The batch stays in progress until the test lets it end: the kill lands during a poll.
    with MessagesServer(default=brain, batch_polls=10**9) as server:
        process = subprocess.Popen(
            [*base, "--run-id", "paid-batch"],
            env=env_for(server),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
        )
        deadline = time.monotonic() + 60
        while _batches_polled(server) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert _batches_polled(server) >= 2 and batch_creations(server) == 1
        server.batch_polls = 1  # the batch has ended by the time the run is resumed
        out = tmp_path / "report.json"
        resumed = subprocess.run(
            [*base, "--resume", "paid-batch", "--format", "json", "--out", str(out)],
            env=env_for(server),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert resumed.returncode in (0, 1), resumed.stderr
        assert "Traceback" not in resumed.stderr
        assert batch_creations(server) == 1  # its batch was polled again, not paid for twice
        assert server.model_calls() == []
    report = json.loads(out.read_text(encoding="utf-8"))
    cases = sum(1 for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip())
    assert report["run_id"] == "paid-batch" and report["total_cases"] == cases
    judged = [r for c in report["cases"] for r in c["results"] if r["id"] != "cites_sources"]
    assert [r for r in judged if r["status"] in ("pass", "fail")]
    assert not [r for r in judged if r["status"] == "error"]
    with SqliteStore(store) as gap_store:
        record = gap_store.run("paid-batch")
        assert record is not None and record.status == "finished"
        assert audit_store(gap_store).ok
    db = sqlite3.connect(store)
    ((status,),) = db.execute("SELECT status FROM judge_batches").fetchall()
    db.close()
    assert status == "ended"
