"""The verdict tool's schema states what the verdict's validator demands, on every path
a request takes (a Messages call, a Message Batches item, an OpenAI-compatible chat
completion; several claims in one request or one each): a judge that answers anything
the schema allows gets a verdict, never a refusal, and the local server sees the
bounds (one entry per claim, each claim's id, its criteria count, its scale)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier_process
from tests.conftest import FIXTURES
from tests.judge.messages_server import MessagesServer
from tests.judge.schema_judge import Extreme, forced_schema, schema_judge

pytestmark = pytest.mark.e2e

CONTRACT = FIXTURES / "judge_run" / "briefs.yaml"
CASES = FIXTURES / "judge_run" / "briefs.cases.jsonl"
KEY = "sk-ant-api03-tool-rules-test-key-0123456789"
JUDGED = ("acknowledge_gaps", "no_speculation", "formal_tone")
# What the briefs contract asks: two criteria, one criterion, a scale from 1 to 5.
BOUNDS = {
    "acknowledge_gaps": {"minItems": 2, "maxItems": 2},
    "no_speculation": {"minItems": 1, "maxItems": 1},
    "formal_tone": {"type": "integer", "minimum": 1, "maximum": 5},
}
OPENAI_JUDGE = """  strict:
    provider: openai
    model: qwen2.5-7b
    base_url: {base_url}
    sampling: {{max_tokens: 512}}
    group: claim
"""


def _openai_contract(tmp_path: Path, server: MessagesServer) -> Path:
    text = CONTRACT.read_text(encoding="utf-8")
    start, end = text.index("  strict:\n"), text.index("claims:\n")
    path = tmp_path / "briefs.yaml"
    judge = OPENAI_JUDGE.format(base_url=server.openai_base_url)
    path.write_text(text[:start] + judge + text[end:], encoding="utf-8")
    return path


def _run(tmp_path: Path, server: MessagesServer, path: str) -> dict[str, Any]:
    contract, extra = CONTRACT, []
    if path == "openai":
        contract = _openai_contract(tmp_path, server)
    elif path == "batch":
        extra = ["--batch", "--batch-poll", "0.05"]
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    out = tmp_path / "report.json"
    argv = ["run", str(contract), "--cases", str(CASES), "--store", str(tmp_path / "gaps.db")]
    result = verifier_process(
        *argv,
        *extra,
        "--format",
        "json",
        "--out",
        str(out),
        cwd=tmp_path,
        env=env,
        clear_prefixes=("ANTHROPIC_", "OPENAI_"),
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return dict(json.loads(out.read_text(encoding="utf-8")))


def _sent_schemas(server: MessagesServer) -> list[dict[str, Any]]:
    """The forced tool's schema of every call and every batch item the server got."""
    bodies = [r.body for r in server.model_calls()]
    for request in server.requests:
        if request.method == "POST" and request.path.endswith("/messages/batches"):
            bodies += [item["params"] for item in request.body["requests"]]
    return [forced_schema(body) for body in bodies]


def _claim_bounds(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each claim's bounds in a schema: its criteria array's or its score's."""
    results = schema["properties"]["results"]
    entries = results["items"].get("anyOf", [results["items"]])
    assert results["minItems"] == results["maxItems"] == len(entries)
    found = {}
    for entry in entries:
        (claim_id,) = entry["properties"]["id"]["enum"]
        bounded = entry["properties"].get("criteria") or entry["properties"]["score"]
        found[claim_id] = {k: bounded[k] for k in BOUNDS[claim_id] if k in bounded}
    return found


@pytest.mark.parametrize("path", ["messages", "batch", "openai"])
@pytest.mark.parametrize("extreme", ["fewest", "most"])
def test_any_answer_the_tool_schema_allows_is_a_verdict(
    tmp_path: Path, path: str, extreme: Extreme
) -> None:
    with MessagesServer(default=schema_judge(extreme)) as server:
        report = _run(tmp_path, server, path)
        schemas = _sent_schemas(server)
    judged = [r for c in report["cases"] for r in c["results"] if r["id"] in JUDGED]
    assert [r for r in judged if r["status"] == "error"] == []
    expected = "pass" if extreme == "most" else "fail"
    assert {r["status"] for r in judged} == {expected, "skipped"}
    seen: dict[str, dict[str, Any]] = {}
    for schema in schemas:
        seen.update(_claim_bounds(schema))
    assert seen == BOUNDS
    if path == "messages":  # group: case puts both binary claims in one request
        assert any(len(_claim_bounds(s)) == 2 for s in schemas)
