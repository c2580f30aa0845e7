"""A judge on a local OpenAI-compatible server (vLLM, Ollama) names its model however the
server does: `verifier check` takes an undated id there, and the row's triple records
the model the server says it served, flagged when it is not the one asked for."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests._cli import verifier
from tests.judge import behaviours as b
from tests.judge.messages_server import MessagesServer

ASKED = "qwen2.5-7b"
SERVED = "Qwen/Qwen2.5-7B-Instruct"
CONTRACT = """contract: local-judge
version: 1
judges:
  local:
    provider: openai
    model: {model}
    base_url: {base_url}
    sampling: {{max_tokens: 256, temperature: 0, seed: 7}}
claims:
  - id: answers
    judge: local
    instruction: The output answers the question asked
"""


def _verdict(request: dict) -> b.Behaviour:
    result = {"id": "answers", "criteria": [], "reasoning": "it answers", "pass": True}
    return b.tool_use({"results": [result]}, model=SERVED)


def _write(tmp_path: Path, model: str, base_url: str) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT.format(model=model, base_url=base_url), encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "c1", "input": "Seats?", "output": "240."}\n', encoding="utf-8")
    return path


def test_a_local_servers_model_is_recorded_as_served(tmp_path: Path) -> None:
    with MessagesServer(default=_verdict) as server:
        contract = _write(tmp_path, ASKED, server.openai_base_url)
        check = verifier("check", str(contract), cwd=tmp_path)
        assert check.returncode == 0, check.stdout + check.stderr
        run = verifier(
            "run",
            str(contract),
            "--cases",
            str(tmp_path / "cases.jsonl"),
            "--store",
            str(tmp_path / "gaps.db"),
            cwd=tmp_path,
            clear_prefixes=("OPENAI_",),
        )
        assert run.returncode == 0, run.stdout + run.stderr
    with sqlite3.connect(tmp_path / "gaps.db") as db:
        (body,) = db.execute("SELECT body FROM rows WHERE kind = 'judge'").fetchone()
    evidence = json.loads(body)["evidence"]
    assert evidence["judge"]["model_id"] == SERVED
    assert evidence["requested_model"] == ASKED
    assert evidence["served_mismatch"] == {"served": SERVED, "asked_for": ASKED}


def test_the_same_undated_model_on_a_public_host_is_refused(tmp_path: Path) -> None:
    contract = _write(tmp_path, "gpt-4o", "https://api.openai.com/v1")
    check = verifier("check", str(contract), cwd=tmp_path)
    assert check.returncode != 0
    assert "model 'gpt-4o' is not a pinned snapshot" in check.stdout + check.stderr
