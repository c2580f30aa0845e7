"""``verifier prompt-eval`` and ``POST /v1/prompt-eval``: the shipped example offline from
its recordings, the JSON answer, two prompts compared, bad requests in one line, and the
HTTP endpoint judged by the local Messages API stand-in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import verifier
from tests.judge.messages_server import MessagesServer
from tests.prompt_eval.evaluator_brain import brain
from tests.prompt_eval.test_evaluate_prompt import MODEL, SEED_FEEDBACK, seed_request
from tests.server._support import running
from verifier.server import ServerSettings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "contracts" / "examples" / "coding-assistant.prompt-eval.json"
KEY = "sk-ant-test-not-a-real-key"
SEVEN = ["prompt", "score", "passed", "feedback", "strengths", "weaknesses", "suggestions"]


def offline(tmp_path: Path, *args: str) -> Any:
    return verifier(
        *args, cwd=tmp_path, clear_prefixes=("ANTHROPIC_", "OPENAI_", "VERIFIER_", "CI")
    )


@pytest.fixture
def stand_in():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running_server:
        yield running_server


def live(tmp_path: Path, server: MessagesServer, *args: str) -> Any:
    return verifier(
        *args,
        cwd=tmp_path,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        clear_prefixes=("ANTHROPIC_", "OPENAI_", "VERIFIER_", "CI"),
    )


def test_the_shipped_example_runs_offline_and_prints_the_seeds_layout(tmp_path: Path) -> None:
    result = offline(tmp_path, "prompt-eval", str(EXAMPLE))
    assert result.returncode == 1, result.stderr  # 53/100 does not pass
    assert result.stdout == SEED_FEEDBACK + "\n"
    assert "Traceback" not in result.stderr
    assert "judges replay recorded verdicts" in result.stderr
    assert "gap rows in .verifier/gaps.db" in result.stderr
    # The closing line gives the score on the feedback's own scale, not as 0.53.
    assert "/coding-assistant.prompt-eval.json): 53/100, failed; gap rows" in result.stderr
    assert "0.53" not in result.stderr
    # The guide shows exactly this output.
    assert SEED_FEEDBACK in (ROOT / "docs" / "guides" / "http.md").read_text(encoding="utf-8")


def test_json_gives_the_tools_seven_keys_then_the_record(tmp_path: Path) -> None:
    result = offline(tmp_path, "prompt-eval", str(EXAMPLE), "--format", "json")
    answer = json.loads(result.stdout)
    assert list(answer)[:7] == SEVEN
    assert (answer["score"], answer["passed"], answer["feedback"]) == (0.53, False, SEED_FEEDBACK)
    assert answer["verdict"] == "failed" and answer["errors"] == []
    assert answer["components"]["structural"] == {"weight": 0.3, "score": 0.2, "not_scored": None}
    assert answer["understanding"]["overall_compliance"] == 0.9
    runs = offline(tmp_path, "runs")
    assert answer["run_id"] in runs.stdout and "prompt-eval v1" in runs.stdout
    audit = offline(tmp_path, "audit")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "judge drift: none" in audit.stdout


def test_with_nothing_answered_the_evaluation_is_incomplete_with_no_invented_finding(
    tmp_path: Path,
) -> None:
    request = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    request["prompt"] = "You are a careful senior Python reviewer."  # no recording matches
    changed = tmp_path / "pe2.json"
    changed.write_text(json.dumps(request), encoding="utf-8")
    shown = offline(tmp_path, "prompt-eval", str(changed))
    assert shown.returncode == 1
    assert shown.stdout.startswith("Score: —/100 (INCOMPLETE: 10 checks could not be answered)\n")
    assert "Adversarial (20%): —/100 - not scored: the critique could not be answered" in (
        shown.stdout
    )
    assert "weakness" not in shown.stdout and "FAILED" not in shown.stdout
    assert "pe2.json): incomplete (10 checks could not be answered); gap rows" in shown.stderr
    result = offline(tmp_path, "prompt-eval", str(changed), "--format", "json")
    answer = json.loads(result.stdout)
    assert (answer["score"], answer["passed"], answer["verdict"]) == (None, False, "incomplete")
    assert (answer["strengths"], answer["weaknesses"], answer["suggestions"]) == ([], [], [])
    assert answer["components"] == {
        "empirical": {"weight": 0.5, "score": None, "not_scored": "4 checks could not be answered"},
        "structural": {
            "weight": 0.3,
            "score": None,
            "not_scored": "5 checks could not be answered",
        },
        "adversarial": {
            "weight": 0.2,
            "score": None,
            "not_scored": "the critique could not be answered",
        },
    }
    assert len(answer["errors"]) == 10


def test_two_prompts_are_scored_and_compared_pair_by_pair(
    tmp_path: Path, stand_in: MessagesServer
) -> None:
    examples = [
        {"input": f"Please reverse word {i}", "expected_output": "def reverse(s): ..."}
        for i in range(3)
    ]
    first = seed_request(training_examples=examples)
    better = seed_request(
        prompt="You are a coding assistant. Format: one Python function, no prose.",
        training_examples=examples,
    )
    (tmp_path / "a.json").write_text(first.model_dump_json(), encoding="utf-8")
    (tmp_path / "b.json").write_text(better.model_dump_json(), encoding="utf-8")
    result = live(tmp_path, stand_in, "prompt-eval", "a.json", "b.json")
    assert "== a.json ==" in result.stdout and "== b.json ==" in result.stdout
    assert "Score: 53/100 (FAILED)" in result.stdout
    # The second prompt passes every structural check and draws no critique.
    assert "Score: 87/100 (PASSED)" in result.stdout
    assert "Example results, prompt 2 against prompt 1 (paired):" in result.stdout
    assert "has_format" in result.stdout.split("(paired):")[1]
    assert result.returncode == 1  # the first prompt failed


def test_a_negative_examples_checks_are_named_by_what_passed_or_failed(
    tmp_path: Path, stand_in: MessagesServer
) -> None:
    negatives = [
        # The target's answer guesses as the bad output does: every fault is shared.
        {"input": "What is the capital of Mars?", "bad_output": "I guess", "reason_why_bad": "x"},
        # The target's answer avoids the bad output's fault.
        {"input": "Please reverse 'abc'", "bad_output": "print('cba')", "reason_why_bad": "y"},
    ]
    request = seed_request(training_examples=[], negative_examples=negatives)
    (tmp_path / "neg.json").write_text(request.model_dump_json(), encoding="utf-8")
    result = live(tmp_path, stand_in, "prompt-eval", "neg.json")
    assert "  ✗ Negative example 1: 0/100\n    - differs_from_bad_output: ✗\n" in result.stdout
    assert (
        "  ✓ Negative example 2: 100/100\n"
        "    - differs_from_bad_output: ✓\n"
        "    - avoids_bad_pattern: ✓\n"
        "    - avoids_bad_tone: ✓\n"
        "    - avoids_bad_mistakes: ✓\n"
    ) in result.stdout
    assert "matches_bad_output" not in result.stdout
    assert "(neg.json): 41/100, failed; gap rows" in result.stderr


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ('{"prompt": "p", "model": "m"}', "give at least one of training_examples or negative_examples"),
        ('{"prompt": "p", "model": "m", "training_examples": [{"input": "x"}]}',
         "training_examples[0]: missing 'expected_output'"),
        ('{"prompt": "p", "modle": "m", "training_examples": []}', "unknown key 'modle' (did you mean 'model'?)"),
        ("[1, 2]", "a prompt evaluation must be a JSON object, not an array"),
        ('{"prompt": ', "line 1: invalid JSON"),
    ],
)  # fmt: skip
def test_a_bad_request_is_one_line_naming_the_file(
    tmp_path: Path, document: str, problem: str
) -> None:
    (tmp_path / "bad.json").write_text(document, encoding="utf-8")
    result = offline(tmp_path, "prompt-eval", "bad.json")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert any(line.startswith("error: bad.json: ") and problem in line for line in lines), lines
    assert "Traceback" not in result.stderr


def test_an_unpinned_model_is_refused_with_one_line(tmp_path: Path) -> None:
    request = seed_request(model="claude-sonnet-4-0")
    (tmp_path / "r.json").write_text(request.model_dump_json(), encoding="utf-8")
    result = offline(tmp_path, "prompt-eval", "r.json")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: cannot evaluate this request:") and "claude-sonnet-4-0" in line


def test_the_http_endpoint_answers_the_evaluation_with_its_run(
    tmp_path: Path, stand_in: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", stand_in.base_url)
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), judge_mode="live")
    body = seed_request().model_dump(mode="json")
    with running(settings) as url:
        response = httpx.post(f"{url}/v1/prompt-eval", json=body, timeout=60)
        bad = httpx.post(
            f"{url}/v1/prompt-eval", json={**body, "model": "claude-sonnet-4-0"}, timeout=60
        )
        many = {**body, "training_examples": body["training_examples"] * 201}
        too_many = httpx.post(f"{url}/v1/prompt-eval", json=many, timeout=60)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert list(answer)[:7] == SEVEN
    assert (answer["score"], answer["feedback"]) == (0.53, SEED_FEEDBACK)
    assert answer["run_id"]
    assert bad.status_code == 422 and "claude-sonnet-4-0" in bad.json()["detail"]
    assert too_many.status_code == 413
    assert MODEL in {c.body["model"] for c in stand_in.model_calls()}
