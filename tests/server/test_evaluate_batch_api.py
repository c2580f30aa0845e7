"""`POST /v1/evaluate` with a threshold, and `POST /v1/evaluate/batch`, over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import FIXTURES
from tests.judge.messages_server import MessagesServer
from tests.server._support import running
from tests.server.test_evaluate_api import settings

PRD_EXAMPLE = json.loads((FIXTURES / "evaluate" / "prd-example.json").read_text("utf-8"))
GUESSING = json.loads((FIXTURES / "evaluate" / "guessing.json").read_text("utf-8"))


def test_the_threshold_of_the_request_decides_pass(
    tmp_path: Path, messages: MessagesServer
) -> None:
    mixed = {**PRD_EXAMPLE, "agent_output": PRD_EXAMPLE["agent_output"] + " My guess is 5."}
    with running(settings(tmp_path)) as url, httpx.Client(base_url=url, timeout=60) as client:
        strict = client.post("/v1/evaluate", json=GUESSING).json()
        lenient = client.post("/v1/evaluate", json={**GUESSING, "threshold": 0}).json()
        default = client.post("/v1/evaluate", json=mixed).json()
    assert (strict["score"], strict["threshold"], strict["pass"]) == (0.0, 1.0, False)
    assert (lenient["score"], lenient["threshold"], lenient["pass"]) == (0.0, 0.0, True)
    assert default["threshold"] == 1.0


@pytest.mark.parametrize(
    ("threshold", "message"),
    [
        (1.5, "threshold is on a 0-1 scale; 1.5 is above 1"),
        (-1, "Input should be greater than or equal to 0"),
        ("high", "must be a number from 0 to 1, not a string"),
    ],
)
def test_a_threshold_outside_0_1_is_a_422_with_one_message(
    tmp_path: Path, judge_env: None, threshold: Any, message: str
) -> None:
    with running(settings(tmp_path)) as url:
        response = httpx.post(f"{url}/v1/evaluate", json={**PRD_EXAMPLE, "threshold": threshold})
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "threshold"] and message in problem["msg"]
    assert not (tmp_path / "gaps.db").exists()


def test_a_batch_gives_the_prd_batch_shape(tmp_path: Path, messages: MessagesServer) -> None:
    body = {
        "agent_id": "account-research",
        "test_suite": "account_research_v1",
        "evaluations": [PRD_EXAMPLE, GUESSING, {**GUESSING, "threshold": 0}],
    }
    with running(settings(tmp_path)) as url:
        response = httpx.post(f"{url}/v1/evaluate/batch", json=body, timeout=60)
    assert response.status_code == 200, response.text
    report = response.json()
    assert (report["agent_id"], report["test_suite"]) == ("account-research", "account_research_v1")
    assert report["results"] == {
        "total_cases": 3,
        "passed_cases": 2,
        "failed_cases": 1,
        "average_score": round(1 / 3, 6),
        "assertion_breakdown": {
            "cite_sources": {"passed": 1, "failed": 0, "errors": 0, "average_score": 1.0},
            "acknowledge_gaps": {"passed": 1, "failed": 2, "errors": 0, "average_score": 0.333333},
        },
    }
    assert [(c["item"], c["pass"], c["threshold"]) for c in report["cases"]] == [
        ("evaluations[0]", True, 1.0),
        ("evaluations[1]", False, 1.0),
        ("evaluations[2]", True, 0.0),
    ]
    assert len({c["run_id"] for c in report["cases"]}) == 3


def test_a_batch_threshold_applies_to_every_evaluation(
    tmp_path: Path, messages: MessagesServer
) -> None:
    body = {"threshold": 0, "evaluations": [GUESSING, {**GUESSING, "threshold": 1}]}
    with running(settings(tmp_path)) as url:
        report = httpx.post(f"{url}/v1/evaluate/batch", json=body, timeout=60).json()
    assert report["agent_id"] is None and report["test_suite"] is None
    assert [(c["pass"], c["threshold"]) for c in report["cases"]] == [(True, 0.0), (True, 0.0)]


def test_a_bad_evaluation_in_a_batch_is_a_located_422(tmp_path: Path, judge_env: None) -> None:
    body = {"evaluations": [PRD_EXAMPLE, {**PRD_EXAMPLE, "assertions": [{"id": "x"}]}]}
    with running(settings(tmp_path)) as url:
        response = httpx.post(f"{url}/v1/evaluate/batch", json=body)
    assert response.status_code == 422
    problem = response.json()["detail"][0]
    assert problem["loc"] == ["body", "evaluations", 1, "assertions", 0, "instruction"]
    assert not (tmp_path / "gaps.db").exists()


@pytest.mark.parametrize(
    ("limits", "count", "detail"),
    [
        (
            {"max_cases": 2},
            3,
            "the request has 3 evaluations; this server takes at most 2 per batch",
        ),
        (
            {"max_results": 5},
            3,
            "the request has 6 assertions in all; this server takes at most 5 per batch "
            "(verifier serve --max-results)",
        ),
        ({"max_assertions": 1}, 1, "the request has 2 assertions; this server takes at most 1"),
    ],
)
def test_a_batch_over_a_limit_is_a_413(
    tmp_path: Path, judge_env: None, limits: dict[str, int], count: int, detail: str
) -> None:
    with running(settings(tmp_path, **limits)) as url:
        response = httpx.post(
            f"{url}/v1/evaluate/batch", json={"evaluations": count * [PRD_EXAMPLE]}
        )
    assert response.status_code == 413
    assert response.json()["detail"].startswith(detail)
    assert not (tmp_path / "gaps.db").exists()


def test_a_batch_on_a_server_without_a_judge_is_a_503(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path, judge=None)) as url:
        response = httpx.post(f"{url}/v1/evaluate/batch", json={"evaluations": [PRD_EXAMPLE]})
    assert response.status_code == 503


def test_the_openapi_document_describes_the_batch(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path)) as url:
        document = httpx.get(f"{url}/openapi.json").json()
    batch = document["paths"]["/v1/evaluate/batch"]["post"]
    assert set(batch["responses"]) >= {"200", "413", "422", "503"}
    schemas = document["components"]["schemas"]
    assert set(schemas["BatchResults"]["properties"]) == {
        "total_cases",
        "passed_cases",
        "failed_cases",
        "average_score",
        "assertion_breakdown",
    }
    assert "pass" in schemas["EvaluationOutput"]["properties"]
