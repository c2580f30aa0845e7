"""A run whose judge's prompt is stored at OpenAI, end to end: `verifier check` wants
the version pinned, each row records the `vendor-managed:openai:responses` sentinel
with the prompt's id and version, `verifier audit` is clean for it and shows a new
version as judge drift."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.judge import behaviours as b
from tests.judge.responses_server import ResponsesServer
from verifier.analyses._history_render import render_console
from verifier.analyses.history import audit_history
from verifier.gaps.sqlite.store import SqliteStore

MODEL = "gpt-4o-2024-08-06"
JUDGE = """  j:
    provider: openai
    model: {model}
    base_url: {base_url}
    stored_prompt: {stored}
{extra}"""
CONTRACT = """contract: stored-judge
version: 1
judges:
{judge}
claims:
  - id: answers
    judge: j
    instruction: The output answers the question asked
"""
CASES = '{"id": "c1", "input": "Seats?", "output": "240."}\n{"id": "c2", "input": "Rows?", "output": "12."}\n'


def _contract(
    tmp_path: Path,
    *,
    base_url: str = "http://127.0.0.1:9/v1",
    stored: str = "{id: pmpt_judge, version: 3}",
    extra: str = "",
) -> Path:
    judge = JUDGE.format(model=MODEL, base_url=base_url, stored=stored, extra=extra)
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT.format(judge=judge.rstrip("\n")), encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(CASES, encoding="utf-8")
    return path


def _run(tmp_path: Path, contract: Path) -> None:
    cases, store = tmp_path / "cases.jsonl", tmp_path / "gaps.db"
    argv = ("run", str(contract), "--cases", str(cases), "--store", str(store))
    run = verifier(*argv, cwd=tmp_path, clear_prefixes=("OPENAI_",))
    assert run.returncode == 0, run.stdout + run.stderr


def _judge_evidence(tmp_path: Path) -> list[dict[str, object]]:
    with sqlite3.connect(tmp_path / "gaps.db") as db:
        rows = db.execute("SELECT body FROM rows WHERE kind = 'judge' ORDER BY seq").fetchall()
    return [json.loads(body)["evidence"] for (body,) in rows]


def test_a_run_records_the_sentinel_and_the_stored_prompt(tmp_path: Path) -> None:
    with ResponsesServer() as server:
        contract = _contract(tmp_path, base_url=server.base_url)
        check = verifier("check", str(contract), cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
        _run(tmp_path, contract)
        assert len(server.bodies) == 2
        assert {body["prompt"]["version"] for body in server.bodies} == {"3"}
    evidence = _judge_evidence(tmp_path)
    assert len(evidence) == 2
    for one in evidence:
        assert one["judge"]["prompt_sha"] == "vendor-managed:openai:responses"
        assert one["judge"]["model_id"] == MODEL
        assert one["stored_prompt"] == {"id": "pmpt_judge", "version": "3"}
    audit = verifier("audit", "--store", str(tmp_path / "gaps.db"), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "judge drift: none" in audit.stdout


def test_a_failing_call_is_an_error_row_then_retried(tmp_path: Path) -> None:
    with ResponsesServer() as server:
        server.script(b.server_error(), b.rate_limited(retry_after=0))
        _run(tmp_path, _contract(tmp_path, base_url=server.base_url))
        assert len(server.bodies) == 4  # two failures retried, then both cases answered
    assert all(e["stored_prompt"]["version"] == "3" for e in _judge_evidence(tmp_path))


def test_a_new_version_is_a_new_judge_and_shows_as_drift(tmp_path: Path) -> None:
    with ResponsesServer() as server:
        _run(tmp_path, _contract(tmp_path, base_url=server.base_url))
        _run(tmp_path, _contract(tmp_path, base_url=server.base_url))
        assert len(server.bodies) == 2  # the second run hit the cache
        new = _contract(tmp_path, base_url=server.base_url, stored="{id: pmpt_judge, version: 4}")
        _run(tmp_path, new)
        assert len(server.bodies) == 4  # a new version is asked again
    with SqliteStore(tmp_path / "gaps.db") as store:
        report = audit_history(store)
    assert report.integrity.ok
    judges = [c for c in report.drift if c.scope == "judge"]
    assert [c.changed for c in judges] == [("stored_prompt",)]
    text = render_console(report)
    assert "stored prompt pmpt_judge version 3 -> pmpt_judge version 4" in text


@pytest.mark.parametrize(
    ("stored", "extra", "message"),
    [
        (
            "{id: pmpt_judge}",
            "",
            "stored prompt 'pmpt_judge' has no version; pin one",
        ),
        (
            "{id: pmpt_judge}",
            "    pinned: false\n",
            "stored prompt 'pmpt_judge' has no version; pin one",
        ),
        (
            "{id: pmpt_judge, version: 3}",
            "    sampling: {seed: 7}\n",
            "sampling.seed: the openai Responses API",
        ),
        (
            "{id: pmpt_judge, version: 3}",
            "    prompt: judge.md\n",
            "a judge has a prompt template or a stored_prompt, not both",
        ),
    ],
)
def test_check_refuses_what_a_stored_prompt_cannot_be(
    tmp_path: Path, stored: str, extra: str, message: str
) -> None:
    contract = _contract(tmp_path, stored=stored, extra=extra)
    check = verifier("check", str(contract), cwd=tmp_path)
    out = check.stdout + check.stderr
    assert check.returncode != 0, out
    assert f"{contract}:" in out and message in out
    assert "Traceback" not in out


def test_check_wants_openai_for_a_stored_prompt(tmp_path: Path) -> None:
    contract = _contract(tmp_path)
    text = contract.read_text(encoding="utf-8").replace(
        f"provider: openai\n    model: {MODEL}",
        "provider: anthropic\n    model: claude-haiku-4-5-20251001",
    )
    contract.write_text(text, encoding="utf-8")
    check = verifier("check", str(contract), cwd=tmp_path)
    assert check.returncode != 0
    assert "stored_prompt names a prompt kept at OpenAI; set provider: openai" in check.stdout


def test_the_call_bounds_its_verdict_tool_for_the_claim(tmp_path: Path) -> None:
    with ResponsesServer() as server:
        _run(tmp_path, _contract(tmp_path, base_url=server.base_url))
        bodies = list(server.bodies)
    for body in bodies:
        (tool,) = body["tools"]
        results = tool["parameters"]["properties"]["results"]
        assert results["minItems"] == results["maxItems"] == 1
        assert results["items"]["properties"]["id"]["enum"] == ["answers"]
