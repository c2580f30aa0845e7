"""`POST /v1/evaluate` over real HTTP, judged by the local Messages API."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import FIXTURES
from tests.evaluate.test_evaluate import OUTPUT_KEYS, casual
from tests.judge.messages_server import MessagesServer
from tests.server._support import MODEL, running
from verifier.judge.config import judge_from_options
from verifier.server import ServerSettings

PRD_EXAMPLE = json.loads((FIXTURES / "evaluate" / "prd-example.json").read_text("utf-8"))
PRD_FOUR = json.loads((FIXTURES / "evaluate" / "prd-four.json").read_text("utf-8"))


def settings(tmp_path: Path, **overrides: Any) -> ServerSettings:
    values: dict[str, Any] = {
        "port": 0,
        "store": str(tmp_path / "gaps.db"),
        "judge": judge_from_options("anthropic", MODEL),
    }
    return ServerSettings(**(values | overrides))


def test_evaluation_round_trip_gives_the_prd_shape_with_the_triple(
    tmp_path: Path, messages: MessagesServer
) -> None:
    with running(settings(tmp_path)) as url:
        response = httpx.post(f"{url}/v1/evaluate", json=PRD_FOUR, timeout=60)
    assert response.status_code == 200, response.text
    report = response.json()
    assert list(report) == OUTPUT_KEYS
    assert (report["score"], report["passed"], report["total"]) == (1.0, 4, 4)
    assert [r["id"] for r in report["results"]] == [a["id"] for a in PRD_FOUR["assertions"]]
    for result in report["results"]:
        assert set(result) == {"id", "pass", "reasoning", "status", "judge"}
        assert result["pass"] is True and result["status"] == "pass" and result["reasoning"]
        triple = result["judge"]
        assert triple["model_id"] == MODEL
        assert len(triple["prompt_sha"]) == 64 and len(triple["sampling_sha"]) == 64
    assert len(messages.model_calls()) == 1  # every assertion in one call, as the PRD's prompt


def test_a_failing_assertion_scores_like_the_prd(tmp_path: Path, judge_env: None) -> None:
    with (
        MessagesServer(default=casual) as server,
        pytest.MonkeyPatch.context() as patch,
    ):
        patch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        with running(settings(tmp_path)) as url:
            report = httpx.post(f"{url}/v1/evaluate", json=PRD_FOUR, timeout=60).json()
    assert (report["score"], report["passed"], report["failed"], report["errors"]) == (
        0.75,
        3,
        1,
        0,
    )
    tone = report["results"][2]
    assert tone["pass"] is False and "pretty solid" in tone["reasoning"]


def test_evaluations_are_stored_as_gap_rows(tmp_path: Path, messages: MessagesServer) -> None:
    with running(settings(tmp_path)) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
        assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
    db = sqlite3.connect(tmp_path / "gaps.db")
    bodies = [json.loads(row[0]) for row in db.execute("SELECT body FROM rows ORDER BY seq")]
    db.close()
    assert [(r["case_id"], r["claim_id"], r["kind"]) for r in bodies] == 2 * [
        ("evaluation", "cite_sources", "judge"),
        ("evaluation", "acknowledge_gaps", "judge"),
    ]
    assert len({r["run_id"] for r in bodies}) == 2
    assert len(messages.model_calls()) == 1  # the second answer came from the cache


def test_replay_mode_makes_no_call_and_reports_errors(
    tmp_path: Path, messages: MessagesServer
) -> None:
    with running(settings(tmp_path, judge_mode="replay")) as url:
        report = httpx.post(f"{url}/v1/evaluate", json=PRD_EXAMPLE, timeout=60).json()
    assert (report["errors"], report["passed"]) == (2, 0)
    assert all(r["status"] == "error" and "replay" in r["reasoning"] for r in report["results"])
    assert messages.model_calls() == []


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"agent_input": "a", "agent_output": ', "json_invalid"),
        (b"[1, 2]", "model_attributes_type"),
        (b'{"agent_input": "a\\ud800", "agent_output": "b"}', "no low surrogate"),
        (b'{"agent_input": ' + b"[" * 5000 + b"]" * 5000 + b"}", "json_invalid"),
        (json.dumps({**PRD_EXAMPLE, "agent_ouput": "x"}).encode(), "extra_forbidden"),
        (json.dumps({**PRD_EXAMPLE, "assertions": []}).encode(), "too_short"),
        (
            json.dumps({**PRD_EXAMPLE, "assertions": 2 * PRD_EXAMPLE["assertions"][:1]}).encode(),
            "duplicate id 'cite_sources'",
        ),
    ],
)
def test_malformed_requests_are_422_with_a_reason(
    tmp_path: Path, judge_env: None, content: bytes, where: str
) -> None:
    with running(settings(tmp_path)) as url:
        response = httpx.post(
            f"{url}/v1/evaluate", content=content, headers={"content-type": "application/json"}
        )
    assert response.status_code == 422
    assert where in response.text and "Traceback" not in response.text
    assert not (tmp_path / "gaps.db").exists()


def test_a_server_without_a_judge_answers_503(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path, judge=None)) as url:
        response = httpx.post(f"{url}/v1/evaluate", json=PRD_EXAMPLE)
    assert response.status_code == 503
    assert "no judge" in response.json()["detail"]


def test_an_unusable_store_is_a_one_line_500_without_internals(
    tmp_path: Path, judge_env: None
) -> None:
    not_a_store = tmp_path / "notes.db"
    not_a_store.write_text("these are notes, not a SQLite database\n" * 100, encoding="utf-8")
    with running(settings(tmp_path, store=str(not_a_store))) as url:
        response = httpx.post(f"{url}/v1/evaluate", json=PRD_EXAMPLE)
    assert response.status_code == 500
    detail = response.json()["detail"]
    assert "\n" not in detail and str(tmp_path) not in detail and "Traceback" not in detail


def _open_files(path: Path) -> int:
    """How many file descriptors of this process (the server runs in it) hold ``path``."""
    held = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            held += Path(fd).readlink() == path
        except OSError:  # closed meanwhile
            continue
    return held


def test_judged_evaluations_leave_no_store_connection_open(
    tmp_path: Path, messages: MessagesServer
) -> None:
    # Each evaluation opens the store's judge cache; left open, a long-lived server
    # runs out of file descriptors after a few hundred requests.
    store = tmp_path / "gaps.db"
    with running(settings(tmp_path)) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
        before = _open_files(store)
        for _ in range(20):
            assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
        assert _open_files(store) <= before


def test_judged_evaluations_leave_no_postgres_connection_open(
    tmp_path: Path, messages: MessagesServer, postgres_url: str
) -> None:
    import uuid

    import psycopg

    # The server's connections carry a name of their own: other tests (and other
    # processes) share the database, and their connections come and go meanwhile.
    name = f"verifier-leak-{uuid.uuid4().hex[:12]}"
    store = f"{postgres_url}&application_name={name}"

    def connections() -> int:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            (count,) = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
            ).fetchone() or (0,)
        return int(count)

    with (
        running(settings(tmp_path, store=store)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
        before = connections()
        for _ in range(10):
            assert client.post("/v1/evaluate", json=PRD_EXAMPLE).status_code == 200
        assert connections() <= before
