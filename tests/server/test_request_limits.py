"""What one request may ask of the server: results and cases per run, assertions per
evaluation; refused with a one-line 413 before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import FIXTURES
from tests.judge.messages_server import MessagesServer
from tests.server._support import MODEL, running
from verifier.judge.config import judge_from_options
from verifier.server import ServerSettings
from verifier.server.app import create_app

PRD_FOUR = json.loads((FIXTURES / "evaluate" / "prd-four.json").read_text("utf-8"))


def settings(tmp_path: Path, **overrides: Any) -> ServerSettings:
    return ServerSettings(**({"port": 0, "store": str(tmp_path / "gaps.db")} | overrides))


def contract(claims: int, *, judged_samples: int = 0) -> str:
    """An inline contract of ``claims`` rubric claims, plus one judge claim sampled
    ``judged_samples`` times when that is set."""
    lines = ["contract: wide", "version: 1", "llm_fields: [output]"]
    if judged_samples:
        lines += [
            "judges:",
            f"  j: {{provider: anthropic, model: {MODEL}, samples: {judged_samples}}}",
        ]
    lines.append("claims:")
    lines += [f"  - {{id: c{i}, rubric: present, field: output}}" for i in range(claims)]
    if judged_samples:
        lines.append("  - {id: judged, judge: j, instruction: The output is polite.}")
    return "\n".join(lines) + "\n"


def cases(count: int) -> list[dict[str, Any]]:
    return [{"id": n} for n in range(count)]


def test_a_36_kb_run_asking_for_400000_results_is_413_before_anything_is_written(
    tmp_path: Path, judge_env: None
) -> None:
    body = json.dumps({"contract": contract(200), "cases": cases(2000)}, separators=(",", ":"))
    assert len(body) < 36_000
    with running(settings(tmp_path)) as url:
        response = httpx.post(
            f"{url}/v1/runs", content=body, headers={"content-type": "application/json"}
        )
    assert response.status_code == 413
    assert response.json() == {
        "detail": "the run would make 400000 results (2000 cases x 200 per case, judge "
        "samples counted); this server takes at most 100000 results per run "
        "(verifier serve --max-results)"
    }
    assert not list(tmp_path.glob("gaps.db*"))


def test_the_results_limit_counts_every_judge_sample(
    tmp_path: Path, messages: MessagesServer
) -> None:
    with running(settings(tmp_path, max_results=8)) as url:
        over = httpx.post(
            f"{url}/v1/runs", json={"contract": contract(1, judged_samples=4), "cases": cases(2)}
        )
    calls = messages.model_calls()
    assert over.status_code == 413
    assert over.json()["detail"].startswith("the run would make 10 results (2 cases x 5 per case")
    assert "at most 8 results per run (verifier serve --max-results)" in over.json()["detail"]
    assert calls == [] and not list(tmp_path.glob("gaps.db*"))


def test_a_run_at_the_results_limit_is_accepted_and_one_over_is_not(
    tmp_path: Path, judge_env: None
) -> None:
    with running(settings(tmp_path, max_results=6)) as url:
        over = httpx.post(f"{url}/v1/runs", json={"contract": contract(2), "cases": cases(4)})
        at = httpx.post(f"{url}/v1/runs", json={"contract": contract(2), "cases": cases(3)})
    assert (over.status_code, at.status_code) == (413, 202)
    assert "8 results (4 cases x 2 per case" in over.json()["detail"]


def test_cases_beyond_the_cases_limit_are_413(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path, max_cases=3)) as url:
        over = httpx.post(f"{url}/v1/runs", json={"contract": contract(1), "cases": cases(4)})
        at = httpx.post(f"{url}/v1/runs", json={"contract": contract(1), "cases": cases(3)})
    assert (over.status_code, at.status_code) == (413, 202)
    assert over.json() == {
        "detail": "the request has 4 cases; this server takes at most 3 cases per run "
        "(verifier serve --max-cases)"
    }


def test_an_evaluation_beyond_the_assertions_limit_is_413_without_a_judge_call(
    tmp_path: Path, messages: MessagesServer
) -> None:
    judge = judge_from_options("anthropic", MODEL)
    with running(settings(tmp_path, judge=judge, max_assertions=3)) as url:
        response = httpx.post(f"{url}/v1/evaluate", json=PRD_FOUR, timeout=60)
    assert response.status_code == 413
    assert response.json() == {
        "detail": "the request has 4 assertions; this server takes at most 3 per evaluation "
        "(verifier serve --max-assertions)"
    }
    assert messages.model_calls() == [] and not list(tmp_path.glob("gaps.db*"))


def test_the_openapi_document_says_which_limits_answer_413(tmp_path: Path) -> None:
    document = create_app(settings(tmp_path, max_results=500, max_assertions=7)).openapi()
    runs = document["paths"]["/v1/runs"]["post"]["responses"]["413"]["description"]
    evaluate = document["paths"]["/v1/evaluate"]["post"]["responses"]["413"]["description"]
    assert "more than 10000 cases" in runs and "more than 500 results" in runs
    assert "more than 7 assertions" in evaluate
