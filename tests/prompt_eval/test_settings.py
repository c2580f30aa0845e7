"""The prompt evaluator's settings file: models and batch from YAML, the request's keys
over it and the options over both; the batch decides how many examples the target runs
(counted at the Messages API stand-in); a bad file is told at its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.judge.messages_server import AZURE_TEST_KEY, MessagesServer
from tests.prompt_eval.evaluator_brain import brain
from tests.prompt_eval.test_evaluate_prompt import MODEL, PROMPT
from verifier._internal.json_documents import DocumentError
from verifier.prompt_eval.settings import PromptEvalSettings, request_settings

KEY = "sk-ant-test-not-a-real-key"
EXAMPLES = [
    {"input": f"Reverse word {i}", "expected_output": "def reverse(s): ..."} for i in range(5)
]


@pytest.fixture
def stand_in():  # type: ignore[no-untyped-def]
    with MessagesServer(default=brain) as running_server:
        yield running_server


def _run(tmp_path: Path, server: MessagesServer, *args: str) -> Any:
    return verifier(
        "prompt-eval",
        *args,
        cwd=tmp_path,
        env={
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": server.base_url,
            "AZURE_OPENAI_API_KEY": AZURE_TEST_KEY,
            "AZURE_OPENAI_ENDPOINT": server.azure_endpoint,
        },
        clear_prefixes=("ANTHROPIC_", "OPENAI_", "AZURE_", "VERIFIER_", "CI"),
    )


def _target_calls(server: MessagesServer) -> list[Any]:
    """The calls that ran the prompt (the judge's calls force a tool)."""
    return [call for call in server.model_calls() if "tool_choice" not in call.body]


def _request(tmp_path: Path, **more: Any) -> str:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"prompt": PROMPT, "training_examples": EXAMPLES, **more}))
    return path.name


def test_the_files_models_and_batch_size_decide_what_runs_and_options_override_it(
    tmp_path: Path, stand_in: MessagesServer
) -> None:
    pytest.importorskip("openai", reason="the azure extra (openai SDK) is not installed")
    stand_in.deployments["gpt-4o-mini"] = "gpt-4o-mini-2024-07-18"
    (tmp_path / "prompt-eval.config.yaml").write_text(
        f"models:\n  target: azure/gpt-4o-mini\n  judge: {MODEL}\n"
        "optimization:\n  batch_size: 2\n  seed: 3\n"
    )
    request = _request(tmp_path)  # no model: the file names it

    first = _run(tmp_path, stand_in, request, "--format", "json")
    assert first.returncode in (0, 1), first.stderr
    targets = _target_calls(stand_in)
    assert len(targets) == 2  # two examples drawn of five: two runs of the prompt
    assert {call.path for call in targets} == {"/openai/deployments/gpt-4o-mini/chat/completions"}
    judged = {call.body["model"] for call in stand_in.model_calls() if "tool_choice" in call.body}
    assert judged == {MODEL}
    assert "Tested against 2 examples" in json.loads(first.stdout)["feedback"]

    stand_in.requests.clear()
    wider = _run(tmp_path, stand_in, request, "--batch-size", "4", "--model", MODEL)
    assert wider.returncode in (0, 1), wider.stderr
    targets = _target_calls(stand_in)
    assert len(targets) == 4 and {call.body["model"] for call in targets} == {MODEL}
    assert "Tested against 4 examples" in wider.stdout


def test_a_requests_own_keys_win_over_the_file(tmp_path: Path, stand_in: MessagesServer) -> None:
    settings = tmp_path / "team.yaml"
    settings.write_text("models:\n  target: claude-sonnet-4-0\noptimization:\n  batch_size: 1\n")
    request = _request(tmp_path, model=MODEL, batch_size=3)
    result = _run(tmp_path, stand_in, request, "--config", str(settings))
    assert result.returncode in (0, 1), result.stderr
    targets = _target_calls(stand_in)
    assert len(targets) == 3 and {call.body["model"] for call in targets} == {MODEL}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "models:\n  target: x\noptimization:\n  batchsize: 5\n",
            "team.yaml:4:3: unknown key 'optimization.batchsize' "
            "(did you mean 'optimization.batch_size'?)",
        ),
        ("optimisation:\n  batch_size: 5\n", "(did you mean 'optimization'?)"),
        ("optimization:\n  batch_size: five\n", "team.yaml:2:15: optimization.batch_size: "),
        ("optimization:\n  batch_size: 0\n", "team.yaml:2:15: optimization.batch_size: "),
        ("models: azure/gpt-4o-mini\n", "team.yaml:1:9: models: should be a mapping"),
        ("models:\n  judge: nope/x\n", "team.yaml:2:10: models.judge: model 'nope/x': no provider"),
    ],
)
def test_a_bad_settings_file_is_refused_at_its_line_before_any_call(
    tmp_path: Path, stand_in: MessagesServer, text: str, problem: str
) -> None:
    (tmp_path / "team.yaml").write_text(text)
    result = _run(tmp_path, stand_in, _request(tmp_path, model=MODEL), "--config", "team.yaml")
    assert result.returncode == 2
    assert problem in result.stderr
    assert "Traceback" not in result.stderr
    assert all(line.startswith("error: team.yaml:") for line in result.stderr.splitlines())
    assert stand_in.model_calls() == []


def test_without_a_file_only_the_options_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = request_settings(None, {"model": MODEL, "seed": None})
    assert settings.source is None
    assert settings.apply({"model": "other", "seed": 4}) == {"model": MODEL, "seed": 4}
    (tmp_path / "prompt-eval.config.yaml").write_text("optimization:\n  seed: 9\n")
    found = request_settings(None, {})
    assert found.source == Path("prompt-eval.config.yaml")
    assert found.apply({}) == {"seed": 9} and found.apply({"seed": 1}) == {"seed": 1}
    with pytest.raises(DocumentError, match=r"missing\.yaml: cannot read"):
        request_settings(tmp_path / "missing.yaml", {})
    assert PromptEvalSettings().request_keys() == {}
