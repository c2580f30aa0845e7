"""Judge claims end to end: `verifier run` against a local Messages API server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests._cli import verifier as run_verifier
from tests.conftest import FIXTURES
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer

CONTRACT = FIXTURES / "judge_run" / "briefs.yaml"
CASES = FIXTURES / "judge_run" / "briefs.cases.jsonl"
KEY = "sk-ant-api03-judge-run-test-key-0123456789"


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running:
        yield running


def verifier(
    tmp_path: Path, *args: str, base_url: str | None, key: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {}
    if key:
        env["ANTHROPIC_API_KEY"] = KEY
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return run_verifier(
        *args, cwd=tmp_path, env=env, clear_prefixes=("ANTHROPIC_", "CI"), timeout=120
    )


def run_json(
    tmp_path: Path, server: MessagesServer | None, *extra: str, key: bool = True
) -> tuple[int, dict, str]:
    out = tmp_path / "report.json"
    result = verifier(
        tmp_path,
        "run",
        str(CONTRACT),
        "--cases",
        str(CASES),
        "--format",
        "json",
        "--out",
        str(out),
        "--store",
        str(tmp_path / "gaps.db"),
        *extra,
        base_url=server.base_url if server else None,
        key=key,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(out.read_text(encoding="utf-8")), result.stderr


def results_by_case(report: dict) -> dict[str, dict[str, dict]]:
    return {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}


def test_judge_rows_carry_the_triple_and_follow_the_verdicts(
    tmp_path: Path, server: MessagesServer
) -> None:
    _, report, _ = run_json(tmp_path, server)
    rows = results_by_case(report)
    assert rows["b1"]["acknowledge_gaps"]["status"] == "pass"
    assert rows["b2"]["acknowledge_gaps"]["status"] == "fail"  # the output guesses
    assert (
        rows["b2"]["formal_tone"]["status"] == "fail" and rows["b2"]["formal_tone"]["score"] == 0.25
    )
    assert rows["b1"]["formal_tone"]["score"] == 1.0
    triple = rows["b1"]["acknowledge_gaps"]["evidence"]["judge"]
    assert triple["model_id"] == "claude-haiku-4-5-20251001"
    assert len(triple["prompt_sha"]) == 64 and len(triple["sampling_sha"]) == 64
    assert report["usage"]["calls"] == len(server.model_calls())


def test_gated_judge_claim_is_skipped_without_a_call(
    tmp_path: Path, server: MessagesServer
) -> None:
    _, report, _ = run_json(tmp_path, server)
    b3 = results_by_case(report)["b3"]
    assert b3["cites_sources"]["status"] == "fail"
    assert b3["acknowledge_gaps"]["status"] == "skipped"
    for call in server.model_calls():
        assert "Quanta" not in json.dumps(call.body) or "acknowledge_gaps" not in json.dumps(
            call.body
        )


def test_group_case_makes_one_call_per_case_and_judge_kind(
    tmp_path: Path, server: MessagesServer
) -> None:
    run_json(tmp_path, server)
    # b1, b2: binary (2 claims in one call) + scale; b3: binary (no_speculation only) + scale.
    assert len(server.model_calls()) == 6


def test_rerun_with_nothing_changed_makes_no_calls(tmp_path: Path, server: MessagesServer) -> None:
    _, first, _ = run_json(tmp_path, server)
    calls = len(server.model_calls())
    _, second, _ = run_json(tmp_path, server)
    assert len(server.model_calls()) == calls
    assert second["usage"]["calls"] == 0 and second["usage"]["cached"] == calls
    cached = results_by_case(second)["b1"]["acknowledge_gaps"]
    assert cached["evidence"]["cache"]["hit"] is True
    assert cached["evidence"]["cache"]["recorded_run"] == first["run_id"]
    assert (
        cached["evidence"]["judge"]
        == results_by_case(first)["b1"]["acknowledge_gaps"]["evidence"]["judge"]
    )


def test_replay_miss_is_an_error_naming_claim_and_case(tmp_path: Path) -> None:
    code, report, _ = run_json(tmp_path, None, "--judges", "replay")
    assert code == 1
    row = results_by_case(report)["b1"]["acknowledge_gaps"]
    assert row["status"] == "error"
    assert (
        "acknowledge_gaps" in row["reasoning"]
        and "b1" in row["reasoning"]
        and "replay" in row["reasoning"]
    )


def test_without_a_key_judges_default_to_replay_of_recordings(
    tmp_path: Path, server: MessagesServer
) -> None:
    recordings = tmp_path / "rec.jsonl"
    run_json(tmp_path, server, "--judges", "record", "--recordings", str(recordings))
    assert recordings.is_file()
    calls = len(server.model_calls())
    (tmp_path / "gaps.db").unlink()  # only the recordings remain
    _, report, stderr = run_json(tmp_path, None, "--recordings", str(recordings), key=False)
    assert "replay" in stderr
    assert len(server.model_calls()) == calls
    assert results_by_case(report)["b1"]["acknowledge_gaps"]["status"] == "pass"


def test_missing_served_model_is_an_error_row(tmp_path: Path) -> None:
    def modelless(request: dict) -> b.Behaviour:
        answer = brain(request)
        return b.no_model(answer.tool_input or {})

    with MessagesServer(default=modelless) as server:
        _, report, _ = run_json(tmp_path, server)
    judged = [
        r
        for c in report["cases"]
        for r in c["results"]
        if r["id"] != "cites_sources" and r["status"] != "skipped"
    ]
    assert judged and all(r["status"] == "error" for r in judged)
    assert all("model_id" in r["reasoning"] for r in judged)
    # Such a reply is never cached: a rerun asks again.
    with MessagesServer(default=brain) as server:
        _, again, _ = run_json(tmp_path, server)
        assert len(server.model_calls()) == 6
    assert again["usage"]["cached"] == 0


def test_secret_never_reaches_rows_or_reports(tmp_path: Path, server: MessagesServer) -> None:
    server.script(b.http_error(401, "invalid x-api-key"))
    _, report, stderr = run_json(tmp_path, server, "--concurrency", "1")
    import sqlite3

    db = sqlite3.connect(tmp_path / "gaps.db")
    bodies = "\n".join(row[0] for row in db.execute("SELECT body FROM rows"))
    db.close()
    for text in (json.dumps(report), stderr, bodies):
        assert KEY not in text and "judge-run-test-key" not in text
