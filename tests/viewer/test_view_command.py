"""`verifier view`: loopback by default, the server's bearer token off loopback, only
an existing store, and a one-line error for what it cannot serve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests._cli import verifier
from tests.server._support import TOKEN, stopped_by_ctrl_c
from verifier.gaps.store import open_store


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "gaps.db"
    open_store(str(path)).close()
    return path


def test_off_loopback_without_a_token_it_refuses_to_start(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = verifier(
        "view",
        "--host",
        "0.0.0.0",
        "--store",
        str(store),
        cwd=tmp_path,
        clear_prefixes=("VERIFIER_",),
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: binding 0.0.0.0 exposes the API beyond this machine: pass --token or set "
        "VERIFIER_SERVE_TOKEN"
    ]


def test_a_missing_store_is_one_line(tmp_path: Path) -> None:
    result = verifier("view", "--store", str(tmp_path / "nope.db"), cwd=tmp_path)
    assert result.returncode == 2
    assert "nope.db: no store found" in result.stderr
    assert "Traceback" not in result.stderr


@contextmanager
def _viewing(*args: str, cwd: Path) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", "view", "--port", "0", *args],
        cwd=cwd,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"serving the viewer on http://\S+?:(\d+)/view/", line)
        assert found, line
        yield f"http://127.0.0.1:{found.group(1)}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.e2e
def test_bound_off_loopback_every_page_needs_the_token(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with _viewing(
        "--host", "0.0.0.0", "--token", TOKEN, "--store", str(store), cwd=tmp_path
    ) as url:
        refused = httpx.get(f"{url}/view/static/viewer.css")
        wrong = httpx.get(f"{url}/view/", headers={"authorization": "Bearer not-the-token-at-all"})
        served = httpx.get(f"{url}/", headers={"authorization": f"Bearer {TOKEN}"})
        posted = httpx.post(f"{url}/view/", headers={"authorization": f"Bearer {TOKEN}"})
        api = httpx.get(f"{url}/openapi.json", headers={"authorization": f"Bearer {TOKEN}"})
    assert refused.status_code == 401 and wrong.status_code == 401
    assert served.status_code == 303 and served.headers["location"] == "/view/runs"
    assert posted.status_code == 405  # read-only: nothing takes a POST
    assert api.status_code == 404  # the viewer alone, not the API


@pytest.mark.e2e
def test_on_loopback_it_serves_without_a_token(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with _viewing("--store", str(store), cwd=tmp_path) as url:
        served = httpx.get(f"{url}/view/static/viewer.js")
        rebound = httpx.get(f"{url}/view/static/viewer.js", headers={"host": "evil.example"})
    assert served.status_code == 200
    assert rebound.status_code == 421  # the API's Host check against DNS rebinding


@pytest.mark.e2e
def test_ctrl_c_stops_the_viewer_quietly_with_exit_0(tmp_path: Path) -> None:
    store = _store(tmp_path)
    command = ["view", "--port", "0", "--store", str(store)]
    code, before, rest = stopped_by_ctrl_c(command, tmp_path, "serving the viewer on http://")
    assert code == 0
    assert before == []  # ready is the first thing it says
    assert rest == "viewer stopped\n"
