"""Stopping ``verifier run`` with Ctrl-C or SIGTERM: it stops at once, the run is
recorded as interrupted, and ``--resume`` completes it with exactly the rows an
uninterrupted run stores."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests._cli import CLEARED
from tests._cli import verifier as run_verifier
from tests.conftest import FIXTURES
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from verifier.gaps.sqlite.store import SqliteStore

pytestmark = pytest.mark.e2e

KEY = "sk-ant-api03-interrupt-test-key-0123456789"

RUBRIC = """\
contract: many
version: 1
claims:
  - id: total_ok
    rubric: range
    field: fields.total
    min: 0
    max: 100
  - id: named
    rubric: regex
    field: fields.name
    pattern: "^[a-z]+$"
"""

JUDGED = FIXTURES / "judge_run" / "briefs.yaml"

STOP_WITHIN = 1.0
"""Seconds from the signal to the run recorded as interrupted and said so."""

EXIT_WITHIN = 5.0
"""Seconds from the signal to the end of the process, which then only tears down the
interpreter (a judge run's SDK makes that slow on a busy machine)."""

PER_CALL = ("latency_ms", "response_id", "cache")
"""Evidence of a judge row that differs between two calls for the same verdict (a
verdict the stopped run obtained but did not store is served from the cache)."""


def write_inputs(tmp_path: Path, contract: str | Path, n_cases: int) -> tuple[Path, Path]:
    """The contract (text, or a file kept where it is) and ``n_cases`` cases, some of
    which fail each claim."""
    if isinstance(contract, str):
        (tmp_path / "contract.yaml").write_text(contract, encoding="utf-8")
        contract = tmp_path / "contract.yaml"
    cases = tmp_path / "cases.jsonl"
    lines = [
        json.dumps(
            {
                "id": f"c{n}",
                "input": f"Brief {n}.",
                "output": f"Account {n} [source: CRM]: "
                + ("my guess is it grows." if n % 3 == 0 else "it renewed 40 seats."),
                "fields": {"total": n % 150, "name": "abc" if n % 7 else "Abc"},
            }
        )
        for n in range(n_cases)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return contract, cases


def stored_rows(store: Path, run_id: str | None = None) -> list[dict[str, Any]]:
    """Every row of ``run_id`` (or the store's only run) without what differs between
    two runs of the same cases: run id, row id prefix and time."""
    with SqliteStore(store) as opened:
        if run_id is None:
            (record,) = opened.runs()
            run_id = record.run_id
        rows = []
        for row in opened.iter_rows(run_id):
            body = json.loads(row.body)
            for key in ("run_id", "recorded_at", "seq", "prev_hash"):
                body.pop(key)
            body["row_id"] = body["row_id"].removeprefix(run_id)
            for key in PER_CALL:
                body["evidence"].pop(key, None)
            rows.append(body)
    return sorted(rows, key=lambda r: r["row_id"])


def row_count(store: Path) -> int:
    """Rows stored so far, read without opening the store as a writer would (which could
    wait on the running writer's lock, on a busy machine until the run had ended)."""
    if not store.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.1)) as db:
            return int(db.execute("SELECT count(*) FROM rows").fetchone()[0])
    except sqlite3.Error:  # the run is still creating the file and its tables
        return 0


def stop_midway(
    tmp_path: Path, contract: Path, cases: Path, sig: signal.Signals, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float, Path]:
    """Starts a run, sends ``sig`` once it has stored rows, and returns the finished
    process and the seconds it took to say it was interrupted."""
    store = tmp_path / "gaps.db"
    full_env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    full_env.update(env)
    args = [sys.executable, "-m", "verifier", "run", str(contract), "--cases", str(cases)]
    args += ["--store", str(store), "--chunk-size", "50", "--format", "json"]
    process = subprocess.Popen(
        args,
        cwd=tmp_path,
        env=full_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while row_count(store) == 0:
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "no rows were stored"
        time.sleep(0.05)
    said: list[tuple[float, str]] = []
    assert process.stderr is not None
    reader = threading.Thread(
        target=lambda: said.extend((time.monotonic(), line) for line in process.stderr or ())
    )
    reader.start()
    process.send_signal(sig)
    sent = time.monotonic()
    process.wait(timeout=60)
    assert time.monotonic() - sent < EXIT_WITHIN
    reader.join()
    stderr = "".join(line for _, line in said)
    took = next((at - sent for at, line in said if line.startswith("interrupted:")), 1e9)
    return subprocess.CompletedProcess(args, process.returncode, "", stderr), took, store


def only_run(store: Path) -> tuple[str, str]:
    with SqliteStore(store) as opened:
        (record,) = opened.runs()
    return record.run_id, record.status


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["sigint", "sigterm"]
)
def test_a_stopped_rubric_run_stops_at_once_and_resumes_to_the_full_rows(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    contract, cases = write_inputs(tmp_path, RUBRIC, 15_000)
    stopped, took, store = stop_midway(tmp_path, contract, cases, sig, {})
    assert stopped.returncode == code, stopped.stderr
    assert took < STOP_WITHIN
    assert "Traceback" not in stopped.stderr
    run_id, status = only_run(store)
    assert status == "interrupted"
    assert f"--resume {run_id} checks the rest" in stopped.stderr
    assert 0 < row_count(store) < 2 * 15_000

    resumed = run_verifier(
        "run", str(contract), "--cases", str(cases), "--store", str(store), "--resume", run_id,
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert resumed.returncode == 1, resumed.stderr
    assert json.loads(resumed.stdout)["total_cases"] == 15_000
    assert only_run(store) == (run_id, "finished")

    whole = tmp_path / "whole"
    whole.mkdir()
    fresh = run_verifier(
        "run", str(contract), "--cases", str(cases), "--store", str(whole / "gaps.db"),
        "--format", "json", cwd=whole,
    )  # fmt: skip
    assert fresh.returncode == 1, fresh.stderr
    assert stored_rows(store, run_id) == stored_rows(whole / "gaps.db")


def test_a_stopped_judge_run_stops_at_once_and_resumes_to_the_full_rows(tmp_path: Path) -> None:
    contract, cases = write_inputs(tmp_path, JUDGED, 200)
    env = {"ANTHROPIC_API_KEY": KEY}
    with MessagesServer(default=brain, latency=0.05) as server:
        env["ANTHROPIC_BASE_URL"] = server.base_url
        stopped, took, store = stop_midway(tmp_path, contract, cases, signal.SIGINT, env)
        assert stopped.returncode == 130, stopped.stderr
        assert took < STOP_WITHIN
        run_id, status = only_run(store)
        assert status == "interrupted"
        assert 0 < row_count(store) < 2 * 200

        args = ("run", str(contract), "--cases", str(cases), "--format", "json")
        resumed = run_verifier(
            *args, "--store", str(store), "--resume", run_id, cwd=tmp_path, env=env
        )
        assert resumed.returncode == 1, resumed.stderr
        assert only_run(store) == (run_id, "finished")
        whole = tmp_path / "whole"
        whole.mkdir()
        fresh = run_verifier(*args, "--store", str(whole / "gaps.db"), cwd=whole, env=env)
        assert fresh.returncode == 1, fresh.stderr
    assert stored_rows(store, run_id) == stored_rows(whole / "gaps.db")
