"""Runs whose judge requests need many Message Batches: split by the API's limits,
every batch recorded before it is polled, resumed after a kill between submissions,
and a batch that expires reported on the rows it leaves unanswered."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests._cli import verifier
from tests.conftest import FIXTURES
from tests.judge._support import judge_request
from tests.judge.batch_driver import prepass
from tests.judge.batch_servers import BatchServer
from tests.judge.judge_brain import brain
from verifier.judge.batch import BatchLimits, split_batches

CONTRACT = FIXTURES / "judge_run" / "briefs.yaml"
REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-many-batches-key-0123456789"


def write_cases(tmp_path: Path, count: int) -> Path:
    """``count`` cases that cite a source: two judge requests each (one for the claim
    gated on the rubric, one for the other two)."""
    cases = tmp_path / "cases.jsonl"
    lines = [
        json.dumps({"id": f"c{i}", "input": "Brief.", "output": f"Fact {i} [source: CRM]."})
        for i in range(count)
    ]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cases


def use(server: BatchServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def ledger_rows(store: Path) -> list[tuple[int, str, str, dict[str, Any]]]:
    """``(seq, batch_id, status, items)`` of every recorded batch, in order."""
    db = sqlite3.connect(store)
    try:
        rows = db.execute(
            "SELECT seq, batch_id, status, items FROM judge_batches ORDER BY judge, seq"
        ).fetchall()
    finally:
        db.close()
    return [(seq, batch_id, status, orjson.loads(items)) for seq, batch_id, status, items in rows]


def test_requests_are_split_by_count_and_by_bytes() -> None:
    requests = [judge_request(custom_id=f"c{i}") for i in range(5)]
    sized = [(r, 10) for r in requests]

    def ids(limits: BatchLimits, items: list[Any] = sized) -> tuple[list[list[str]], list[str]]:
        batches, oversized = split_batches(items, limits)
        return [[r.custom_id for r in b] for b in batches], [r.custom_id for r in oversized]

    assert ids(BatchLimits(requests=2)) == ([["c0", "c1"], ["c2", "c3"], ["c4"]], [])
    # {"requests":[ and ]} take 15 bytes, a comma 1: two items of 10 need 36.
    assert ids(BatchLimits(bytes=36)) == ([["c0", "c1"], ["c2", "c3"], ["c4"]], [])
    assert ids(BatchLimits(bytes=35)) == ([["c0"], ["c1"], ["c2"], ["c3"], ["c4"]], [])
    big = [(requests[0], 10), (requests[1], 30), (requests[2], 10)]
    assert ids(BatchLimits(bytes=36), big) == ([["c0", "c2"]], ["c1"])


@pytest.mark.parametrize("limit", ["requests", "bytes"])
def test_a_run_needing_three_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    cases = write_cases(tmp_path, 5)
    store = tmp_path / "gaps.db"
    with BatchServer(default=brain) as server:
        use(server, monkeypatch)
        if limit == "requests":
            limits = BatchLimits(requests=4)
        else:
            # Room for exactly two cases' requests (every case's are of one size).
            limits = BatchLimits(bytes=15 + 2 * case_size(tmp_path, server) + 3)
        errors = asyncio.run(prepass(CONTRACT, cases, str(store), "r1", limits))
        created = server.created()[-3:]
        bodies = [r.body for r in server.requests if r.path == "/v1/messages/batches"][-3:]
        assert server.model_calls() == []
    assert all(len(orjson.dumps(body)) <= limits.bytes for body in bodies)
    assert errors == {}
    assert [len(ids) for _, ids in created] == [4, 4, 2]
    every = [cid for _, ids in created for cid in ids]
    assert len(every) == len(set(every)) == 10
    rows = ledger_rows(store)
    assert [(seq, batch_id, status) for seq, batch_id, status, _ in rows] == [
        (n, batch_id, "ended") for n, (batch_id, _) in enumerate(created)
    ]
    assert [sorted(items) for *_, items in rows] == [sorted(ids) for _, ids in created]
    # Every reply, whichever batch brought it, answers its own request in a later run.
    out = tmp_path / "replayed.json"
    replay = verifier(
        "run", str(CONTRACT), "--cases", str(cases), "--store", str(store),
        "--judges", "replay", "--format", "json", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert replay.returncode in (0, 1), replay.stderr
    results = [r for c in json.loads(out.read_text())["cases"] for r in c["results"]]
    assert len(results) == 5 * 4 and not [r for r in results if r["status"] == "error"]


def case_size(tmp_path: Path, server: BatchServer) -> int:
    """The bytes of one case's two requests as batch items, from a one-case run."""
    folder = tmp_path / "one"
    folder.mkdir()
    cases = write_cases(folder, 1)
    asyncio.run(prepass(CONTRACT, cases, str(folder / "gaps.db"), "one", BatchLimits()))
    (create,) = [r for r in server.requests if r.path == "/v1/messages/batches"]
    return sum(len(orjson.dumps(item)) for item in create.body["requests"])


@pytest.mark.e2e
def test_a_run_killed_between_batch_submissions_is_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = write_cases(tmp_path, 5)
    store = tmp_path / "gaps.db"
    with BatchServer(default=brain, hold_from=2) as server:
        env = use(server, monkeypatch)
        driver = [sys.executable, "-m", "tests.judge.batch_driver"]
        process = subprocess.Popen(
            [*driver, str(CONTRACT), str(cases), str(store), "r1", "4"],
            env={**_environ(), **env},
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        # The second submission is on its way: the first batch has been recorded.
        held = server.held.wait(60)
        process.kill()
        _, stderr = process.communicate(timeout=10)
        assert held, stderr.decode()
        server.release()
        ((first, _),) = server.created()
        assert [(seq, b, status) for seq, b, status, _ in ledger_rows(store)] == [
            (0, first, "submitted")
        ]

        errors = asyncio.run(prepass(CONTRACT, cases, str(store), "r1", BatchLimits(requests=4)))

        created = server.created()
        assert server.model_calls() == []
    assert errors == {}
    assert created[0][0] == first and [len(ids) for _, ids in created] == [4, 4, 2]
    every = [cid for _, ids in created for cid in ids]
    assert len(every) == len(set(every)) == 10  # none submitted twice, none lost
    rows = ledger_rows(store)
    assert [(seq, b, status) for seq, b, status, _ in rows] == [
        (n, batch_id, "ended") for n, (batch_id, _) in enumerate(created)
    ]
    polls = [r for r in server.requests if r.method == "GET" and r.path.endswith(first)]
    assert polls  # the first batch was polled after the resume, not sent again


def test_a_batch_that_expires_leaves_errors_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = write_cases(tmp_path, 5)
    store = tmp_path / "gaps.db"
    with BatchServer(default=brain, expire={2}) as server:
        use(server, monkeypatch)
        errors = asyncio.run(prepass(CONTRACT, cases, str(store), "r1", BatchLimits(requests=4)))
    rows = ledger_rows(store)
    expired_id, expired_items = rows[1][1], rows[1][3]
    assert set(errors) == {item["cache_key"] for item in expired_items.values()}
    assert set(errors.values()) == {
        f"batch item failed in batch {expired_id}: anthropic: batch request expired"
    }
    assert [status for _, _, status, _ in rows] == ["ended"] * 3


def test_a_batch_run_whose_batch_expires_records_error_rows_naming_it(tmp_path: Path) -> None:
    cases = write_cases(tmp_path, 3)
    out = tmp_path / "report.json"
    with BatchServer(default=brain, expire={1}) as server:
        result = verifier(
            "run", str(CONTRACT), "--cases", str(cases), "--store", str(tmp_path / "gaps.db"),
            "--batch", "--batch-poll", "0.01", "--format", "json", "--out", str(out),
            cwd=tmp_path, clear_prefixes=("ANTHROPIC_",),
            env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        )  # fmt: skip
        ((batch_id, _),) = server.created()
    assert result.returncode == 1, result.stderr
    judged = [
        r
        for c in json.loads(out.read_text())["cases"]
        for r in c["results"]
        if r["id"] != "cites_sources"
    ]
    assert len(judged) == 3 * 3
    assert all(r["status"] == "error" for r in judged)
    assert all(f"in batch {batch_id}: anthropic: batch request expired" in r["reasoning"]
               for r in judged)  # fmt: skip


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CI"))}


def test_a_batch_the_api_no_longer_knows_leaves_errors_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = write_cases(tmp_path, 2)
    store = tmp_path / "gaps.db"
    with BatchServer(default=brain) as first:
        use(first, monkeypatch)
        assert asyncio.run(prepass(CONTRACT, cases, str(store), "r1", BatchLimits())) == {}
    ((_, batch_id, _, items),) = ledger_rows(store)
    with BatchServer(default=brain) as other:  # knows no batch: 404 on every poll
        use(other, monkeypatch)
        errors = asyncio.run(prepass(CONTRACT, cases, str(store), "r1", BatchLimits()))
        assert other.created() == []  # the recorded batch is not sent again
    assert set(errors) == {item["cache_key"] for item in items.values()}
    assert all(
        reason.startswith(f"batch {batch_id} could not be collected: ")
        for reason in errors.values()
    )
