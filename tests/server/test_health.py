"""`GET /health`: the cheapest request, answered while the server is up, behind the
same guard as every route."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server._support import TOKEN, running
from verifier.server import ServerSettings


def test_health_answers_ok_and_is_documented(tmp_path: Path, judge_env: None) -> None:
    with running(ServerSettings(port=0, store=str(tmp_path / "gaps.db"))) as url:
        response = httpx.get(f"{url}/health")
        document = httpx.get(f"{url}/openapi.json").json()
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {"status": "ok"}
    assert "/health" in document["paths"]


def test_health_asks_for_the_token_and_a_served_host(tmp_path: Path, judge_env: None) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), token=TOKEN)
    with running(settings) as url:
        without = httpx.get(f"{url}/health")
        forged = httpx.get(
            f"{url}/health",
            headers={"authorization": f"Bearer {TOKEN}", "host": "rebind.example"},
        )
        right = httpx.get(f"{url}/health", headers={"authorization": f"Bearer {TOKEN}"})
    assert (without.status_code, forged.status_code, right.status_code) == (401, 421, 200)
