"""``verifier mcp``'s ``evaluate`` tool: the seed's request and answer, the prompt run and
judged through the local Messages API stand-in (or replayed from recordings), stored
as one run that the ``audit`` tool checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from tests.conftest import EXAMPLES
from tests.judge.messages_server import MessagesServer
from tests.mcp_server._client import answer, error_line, served
from tests.prompt_eval.evaluator_brain import brain
from tests.prompt_eval.test_evaluate_prompt import MODEL, SEED_FEEDBACK, seed_request
from verifier.prompt_eval import EvaluateRequest, EvaluateResponse

pytestmark = pytest.mark.e2e

KEY = "sk-ant-api03-mcp-evaluate-test-key-0123456789"
SEVEN = ["prompt", "score", "passed", "feedback", "strengths", "weaknesses", "suggestions"]


@pytest.fixture
def stand_in() -> Any:
    with MessagesServer(default=brain) as running:
        yield running


def test_evaluate_is_listed_with_the_seeds_request_and_answer(tmp_path: Path) -> None:
    async def talk(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in served(tmp_path, talk)}
    assert set(tools) == {"check", "run", "audit", "evaluate"}
    evaluate = tools["evaluate"]
    assert evaluate.description and "pinned" in evaluate.description
    assert evaluate.input_schema == EvaluateRequest.model_json_schema()
    assert evaluate.output_schema == EvaluateResponse.model_json_schema()
    assert set(evaluate.input_schema["properties"]) == {
        "prompt", "training_examples", "negative_examples", "model", "judge_model",
        "batch_size", "seed",
    }  # fmt: skip


def test_evaluate_answers_the_seeds_seven_keys_and_stores_the_run(
    tmp_path: Path, stand_in: MessagesServer
) -> None:
    request = seed_request().model_dump(mode="json")

    async def talk(session: ClientSession) -> Any:
        evaluated = answer(await session.call_tool("evaluate", request))
        audit = answer(await session.call_tool("audit", {"run": "last"}))
        return evaluated, audit

    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": stand_in.base_url}
    evaluated, audit = served(tmp_path, talk, "--store", "gaps.db", "--judges", "live", env=env)
    assert list(evaluated) == SEVEN
    assert (evaluated["score"], evaluated["passed"]) == (0.53, False)
    assert evaluated["feedback"] == SEED_FEEDBACK
    assert evaluated["strengths"] == ["Has role"]
    assert "Add output format specification" in evaluated["suggestions"]
    assert MODEL in {call.body["model"] for call in stand_in.model_calls()}
    assert audit["ok"] is True and audit["rows_checked"] > 0
    assert KEY not in json.dumps(evaluated)


def test_evaluate_replays_the_shipped_example_from_its_recordings(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "coding-assistant.prompt-eval.recordings.jsonl", tmp_path / "r.jsonl")
    request = json.loads((EXAMPLES / "coding-assistant.prompt-eval.json").read_text("utf-8"))

    async def talk(session: ClientSession) -> Any:
        return answer(await session.call_tool("evaluate", request))

    evaluated = served(
        tmp_path,
        talk,
        "--judges",
        "replay",
        "--recordings",
        "r.jsonl",
        env={"ANTHROPIC_API_KEY": ""},
    )
    assert (evaluated["score"], evaluated["feedback"]) == (0.53, SEED_FEEDBACK)


def test_a_bad_evaluation_request_is_a_one_line_tool_error(tmp_path: Path) -> None:
    request = seed_request().model_dump(mode="json")
    calls = [
        {**request, "model": "claude-sonnet-4-0"},
        {"prompt": "p", "model": MODEL},
        {**request, "modle": MODEL},
    ]

    async def talk(session: ClientSession) -> Any:
        return [error_line(await session.call_tool("evaluate", args)) for args in calls]

    unpinned, no_examples, unknown = served(tmp_path, talk, "--judges", "replay")
    assert unpinned.startswith("cannot evaluate this request:") and "claude-sonnet-4-0" in unpinned
    assert "give at least one of training_examples or negative_examples" in no_examples
    assert unknown.startswith("evaluate: modle:")
