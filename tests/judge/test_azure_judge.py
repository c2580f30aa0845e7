"""A judge on an Azure OpenAI deployment, end to end: `verifier check` says what it
needs, a run's rows record the model the deployment served (flagged as not the one
asked for), and a deployment moved to another model between runs is judge drift in
`verifier audit`. The key reaches no row, report or message."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.judge import behaviours as b
from tests.judge.messages_server import AZURE_TEST_KEY, MessagesServer

pytest.importorskip("openai", reason="the azure extra (openai SDK) is not installed")

DEPLOYMENT = "prod-judge"
FIRST, SECOND = "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"
PUBLIC = "https://contoso.openai.azure.com"
CLEARED = ("AZURE_", "OPENAI_")
CONTRACT = """contract: azure-judge
version: 1
judges:
  azure:
    provider: azure-openai
    model: {model}
{more}    sampling: {{max_tokens: 256, temperature: 0, seed: 7}}
claims: [{{id: answers, judge: azure, instruction: The output answers the question asked}}]
"""


def _verdict(request: dict) -> b.Behaviour:
    result = {"id": "answers", "criteria": [], "reasoning": "it answers", "pass": True}
    return b.tool_use({"results": [result]})


def _contract(tmp_path: Path, more: str, model: str = DEPLOYMENT) -> Path:
    path = tmp_path / "contract.yaml"
    path.write_text(CONTRACT.format(model=model, more=more), encoding="utf-8")
    return path


def _check(tmp_path: Path, more: str, **env: str) -> str:
    result = verifier(
        "check", str(_contract(tmp_path, more)), cwd=tmp_path, env=env, clear_prefixes=CLEARED
    )
    return f"{result.returncode}\n{result.stdout}{result.stderr}"


def test_check_names_a_missing_endpoint_in_one_line(tmp_path: Path) -> None:
    out = _check(tmp_path, "    pinned: false\n")

    assert not out.startswith("0\n")
    (line,) = [x for x in out.splitlines() if "base_url" in x]
    assert line.endswith(
        "judge 'azure': provider azure-openai needs base_url: the resource endpoint, "
        "https://NAME.openai.azure.com (or set AZURE_OPENAI_ENDPOINT)"
    )
    assert "needs base_url" not in _check(
        tmp_path, "    pinned: false\n", AZURE_OPENAI_ENDPOINT=PUBLIC
    )


def test_check_refuses_a_deployment_name_unless_pinned_false(tmp_path: Path) -> None:
    refused = _check(tmp_path, f"    base_url: {PUBLIC}\n")
    accepted = _check(tmp_path, f"    base_url: {PUBLIC}\n    pinned: false\n")

    assert not refused.startswith("0\n")
    assert (
        "judge 'azure': model 'prod-judge' is an Azure OpenAI deployment name, not a pinned "
        "model: the deployment picks the model version and may change it (each row records "
        "the model the response names, and audit reports a change as judge drift); set "
        "`pinned: false` on the judge to accept it"
    ) in refused
    assert accepted.startswith("0\n"), accepted
    assert "deployment name, not a pinned model" in accepted and "warning" in accepted


def _run(tmp_path: Path, server: MessagesServer, case: str, **env: str) -> str:
    """``verifier run`` of one case (its own, as a case judged before is answered from
    the judge cache) on the server's deployment; its exit code, then its output."""
    cases = tmp_path / f"{case}.jsonl"
    line = {"id": case, "input": f"Seats on {case}?", "output": "240."}
    cases.write_text(json.dumps(line) + "\n")
    more = f"    base_url: {server.azure_endpoint}\n    pinned: false\n"
    result = verifier(
        "run",
        str(_contract(tmp_path, more)),
        "--cases",
        str(cases),
        "--store",
        str(tmp_path / "gaps.db"),
        cwd=tmp_path,
        env=env,
        clear_prefixes=CLEARED,
    )
    return f"{result.returncode}\n{result.stdout}{result.stderr}"


def _bodies(tmp_path: Path) -> list[str]:
    with sqlite3.connect(tmp_path / "gaps.db") as db:
        bodies = db.execute("SELECT body FROM rows WHERE kind = 'judge' ORDER BY seq").fetchall()
    return [body for (body,) in bodies]


def test_a_deployment_moved_to_another_model_is_served_model_drift(tmp_path: Path) -> None:
    key = {"AZURE_OPENAI_API_KEY": AZURE_TEST_KEY}
    with MessagesServer(default=_verdict) as server:
        server.deployments[DEPLOYMENT] = FIRST
        logs = _run(tmp_path, server, "monday", **key)
        server.deployments[DEPLOYMENT] = SECOND
        logs += _run(tmp_path, server, "tuesday", **key)
        (call, _) = server.model_calls()
    assert logs.startswith("0\n") and "\n0\n" in logs, logs
    assert call.path == f"/openai/deployments/{DEPLOYMENT}/chat/completions"
    monday, tuesday = (json.loads(body)["evidence"] for body in _bodies(tmp_path))
    assert monday["judge"]["model_id"] == FIRST and tuesday["judge"]["model_id"] == SECOND
    assert monday["requested_model"] == DEPLOYMENT
    assert monday["served_mismatch"] == {"served": FIRST, "asked_for": DEPLOYMENT}
    audit = verifier("audit", "--store", str(tmp_path / "gaps.db"), cwd=tmp_path)
    assert "judge drift" in audit.stdout, audit.stdout
    assert (
        f"served model {FIRST} -> {SECOND}; requested model {DEPLOYMENT} unchanged" in audit.stdout
    )
    record = (tmp_path / "gaps.db").read_bytes()
    for text in (record.decode("latin-1"), logs, audit.stdout, audit.stderr):
        assert AZURE_TEST_KEY not in text


def test_without_a_key_or_token_the_judge_replays_and_says_what_is_unset(
    tmp_path: Path,
) -> None:
    with MessagesServer(default=_verdict) as server:
        server.deployments[DEPLOYMENT] = FIRST
        logs = _run(tmp_path, server, "c")
        assert server.model_calls() == []
    assert "AZURE_OPENAI_API_KEY (or AZURE_OPENAI_AD_TOKEN) is not set" in logs


def test_a_refused_key_is_an_error_row_that_does_not_hold_the_key(tmp_path: Path) -> None:
    wrong = "azure-wrong-key-canary-0451"
    with MessagesServer(default=_verdict) as server:
        server.deployments[DEPLOYMENT] = FIRST
        logs = _run(tmp_path, server, "c", AZURE_OPENAI_API_KEY=wrong)
    (row,) = [json.loads(body) for body in _bodies(tmp_path)]
    assert row["status"] == "error" and "HTTP 401" in row["reason"]
    record = (tmp_path / "gaps.db").read_bytes().decode("latin-1")
    assert wrong not in record and wrong not in logs
