"""A real server on 127.0.0.1 for the API tests: uvicorn in a background thread."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from verifier.server.serve import Parser, bind, make_server
from verifier.server.settings import ServerSettings

MODEL = "claude-haiku-4-5-20251001"
KEY = "sk-ant-api03-serve-test-key-0123456789"
TOKEN = "serve-test-token-0123456789abcdef"


@contextmanager
def running(
    settings: ServerSettings, app: Any = None, *, parser: Parser | None = None
) -> Iterator[str]:
    """Serves ``settings`` (or any ASGI ``app``) on a free port; yields the base URL.

    The socket is bound on the settings' host (``0.0.0.0`` too) and reached through
    127.0.0.1. ``parser`` is the HTTP parser of the API's server (default: the server's
    own choice).
    """
    settings.check()
    sock = bind(settings)
    server = (
        make_server(settings, parser=parser)
        if app is None
        else uvicorn.Server(uvicorn.Config(app, log_config=None))
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    port = sock.getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def poll_run(client: httpx.Client, run_id: str, *, timeout: float = 60) -> dict[str, Any]:
    """``GET /v1/runs/{run_id}`` until the run is no longer running."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(f"/v1/runs/{run_id}")
        assert response.status_code == 200, response.text
        state: dict[str, Any] = response.json()
        if state["status"] != "running":
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"run {run_id} still running after {timeout}s")
        time.sleep(0.05)


def serve_process(cwd: Path, env: Mapping[str, str], *arguments: str) -> subprocess.Popen[str]:
    """``verifier serve ARGUMENTS`` in its own process, its stderr readable as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "verifier", "serve", *arguments],
        cwd=cwd,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )


def stopped_by_ctrl_c(command: list[str], cwd: Path, ready: str) -> tuple[int, list[str], str]:
    """Starts ``verifier COMMAND`` in ``cwd``, sends it SIGINT (Ctrl-C) once it has said a
    line starting with ``ready``, and returns its exit code, the lines it said before
    that one, and what it said after."""
    import os
    import signal

    env = {k: v for k, v in os.environ.items() if not k.startswith(("VERIFIER_", "ANTHROPIC_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "verifier", *command],
        cwd=cwd,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal, whatever this suite inherited: Ctrl-C raises in Python.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    said = []
    while not (line := process.stderr.readline()).startswith(ready):
        assert line, "".join(said)  # it ended without saying it was ready
        said.append(line)
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    return process.wait(timeout=30), said, rest
