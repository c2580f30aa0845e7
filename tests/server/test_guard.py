"""The guard in front of the API: bearer token, body limit, one-line 500s; and the
refusal to bind beyond loopback without a token."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import cli
from tests.conftest import FIXTURES
from tests.server._support import KEY, TOKEN, running, serve_process
from verifier.server import ServerSettings
from verifier.server.guard import INTERNAL_ERROR, Guard

PRD_EXAMPLE = json.loads((FIXTURES / "evaluate" / "prd-example.json").read_text("utf-8"))
RUN = {"contract": "contract: c\nversion: 1\nclaims: [{id: a, rubric: present, field: output}]\n"}


def settings(tmp_path: Path, **overrides: Any) -> ServerSettings:
    return ServerSettings(**({"port": 0, "store": str(tmp_path / "gaps.db")} | overrides))


def test_a_declared_length_over_the_limit_is_413(tmp_path: Path, judge_env: None) -> None:
    with running(settings(tmp_path, max_body=1024)) as url:
        big = {**RUN, "cases": [{"id": 1, "output": "x" * 4096}]}
        response = httpx.post(f"{url}/v1/runs", json=big)
        small = httpx.post(f"{url}/v1/runs", json={**RUN, "cases": [{"id": 1, "output": "x"}]})
    assert response.status_code == 413
    assert response.json() == {"detail": "request body larger than 1024 bytes"}
    assert small.status_code == 202


def test_a_streamed_body_over_the_limit_is_413(tmp_path: Path, judge_env: None) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
        yield b'{"contract": "c.yaml", "cases": [{"id": 1, "output": "'
        for _ in range(32):
            yield b"x" * 1024
        yield b'"}]}'

    with running(settings(tmp_path, max_body=4096)) as url:
        response = httpx.post(
            f"{url}/v1/runs", content=chunks(), headers={"content-type": "application/json"}
        )
    assert response.status_code == 413


def test_the_body_limit_stops_reading_at_the_limit() -> None:
    reads = 0

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * 1024, "more_body": True}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app must not see an oversized body")

    scope = {"type": "http", "method": "POST", "path": "/v1/runs", "headers": []}
    asyncio.run(Guard(app, token=None, max_body=4096, hosts=None)(scope, receive, send))
    assert reads == 5  # four chunks fit, the fifth passes the limit: nothing more is read
    assert sent[0]["status"] == 413


def test_a_failing_route_is_a_one_line_500_without_internals(
    tmp_path: Path, judge_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"boom at {tmp_path} with key {KEY}")

    monkeypatch.setattr("verifier.server.app.evaluate", broken)
    from verifier.judge.config import judge_from_options

    judge = judge_from_options("anthropic", "claude-haiku-4-5-20251001")
    with running(settings(tmp_path, judge=judge)) as url:
        response = httpx.post(f"{url}/v1/evaluate", json=PRD_EXAMPLE)
    assert response.status_code == 500
    assert response.json() == {"detail": INTERNAL_ERROR}
    assert KEY not in response.text and str(tmp_path) not in response.text


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::"])
def test_binding_beyond_loopback_without_a_token_is_refused(tmp_path: Path, host: str) -> None:
    env = {k: None for k in os.environ if k.startswith("VERIFIER_")}
    result = cli("serve", "--host", host, "--store", str(tmp_path / "gaps.db"), env=env)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0] == (
        f"error: binding {host} exposes the API beyond this machine: "
        "pass --token or set VERIFIER_SERVE_TOKEN"
    )


def test_a_short_token_is_refused(tmp_path: Path) -> None:
    result = cli("serve", "--host", "0.0.0.0", "--token", "short")
    assert result.exit_code == 2
    assert result.stderr == "error: the token must have at least 16 characters\n"


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token-0123456789abcdef", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN}x"],
)
def test_without_the_right_bearer_token_every_request_is_401(
    tmp_path: Path, judge_env: None, authorization: str | None
) -> None:
    headers = {"authorization": authorization} if authorization else {}
    with running(settings(tmp_path, host="0.0.0.0", token=TOKEN)) as url:
        for method, path in (("GET", "/openapi.json"), ("GET", "/v1/runs/x"), ("POST", "/v1/runs")):
            response = httpx.request(method, f"{url}{path}", headers=headers, json=RUN)
            assert response.status_code == 401, (method, path)
            assert response.headers["www-authenticate"] == "Bearer"
            assert TOKEN not in response.text


def test_with_the_bearer_token_requests_are_served(tmp_path: Path, judge_env: None) -> None:
    headers = {"authorization": f"Bearer {TOKEN}"}
    with running(settings(tmp_path, host="0.0.0.0", token=TOKEN)) as url:
        document = httpx.get(f"{url}/openapi.json", headers=headers)
        started = httpx.post(
            f"{url}/v1/runs", headers=headers, json={**RUN, "cases": [{"id": 1, "output": "x"}]}
        )
        missing = httpx.get(f"{url}/v1/runs/x", headers={"authorization": f"bearer {TOKEN}"})
    assert document.status_code == 200
    assert document.json()["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert started.status_code == 202 and missing.status_code == 404


@pytest.mark.e2e
def test_verifier_serve_starts_and_serves_with_a_token_from_the_environment(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "VERIFIER_"))}
    env["VERIFIER_SERVE_TOKEN"] = TOKEN
    process = serve_process(
        tmp_path, env, "--host", "0.0.0.0", "--port", "0", "--store", str(tmp_path / "gaps.db")
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first == "note: no judge given, so POST /v1/evaluate answers 503\n", first
        line = process.stderr.readline()
        assert line.startswith("serving the API on http://0.0.0.0:"), line
        port = int(line.rsplit(":", 1)[1])
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"{url}/openapi.json")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert response.status_code == 401
        authorized = httpx.get(f"{url}/openapi.json", headers={"authorization": f"Bearer {TOKEN}"})
        assert authorized.status_code == 200
        assert "/v1/evaluate" in authorized.json()["paths"]
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err and TOKEN not in err
