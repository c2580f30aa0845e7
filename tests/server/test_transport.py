"""The connections under the API, on a real uvicorn over raw sockets: keep-alive
requests answered without a delayed-ACK stall, and clients that send too slowly (or
nothing) disconnected while others are served; under each HTTP parser the server has
(httptools, its default, and h11 when httptools is not installed)."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import cli
from tests.server._support import running
from verifier.server import ServerSettings
from verifier.server.serve import Parser

TIMEOUT = 0.5
"""The read timeout these servers get: short, so a test sees the drop quickly."""


@pytest.fixture(params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest) -> Parser:
    name: Parser = request.param
    return name


@contextmanager
def server(tmp_path: Path, parser: Parser, **overrides: Any) -> Iterator[tuple[str, int]]:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), **overrides)
    with running(settings, parser=parser) as url:
        yield url, int(url.rsplit(":", 1)[1])


def request(sock: socket.socket, head: bytes) -> bytes:
    """Sends one request on ``sock`` and reads its whole response."""
    sock.sendall(head)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head_end = data.index(b"\r\n\r\n") + 4
    length = next(
        int(line.split(b":")[1])
        for line in data[:head_end].split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(data) < head_end + length:
        data += sock.recv(65536)
    return data


def until_closed(sock: socket.socket, seconds: float) -> tuple[bytes, float | None]:
    """What the server sends until it closes ``sock``, and when it closed it (``None``:
    still open after ``seconds``)."""
    start = time.monotonic()
    data = b""
    while (left := start + seconds - time.monotonic()) > 0:
        if select.select([sock], [], [], left)[0]:
            chunk = sock.recv(65536)
            if not chunk:
                return data, time.monotonic() - start
            data += chunk
    return data, None


def test_keep_alive_requests_on_one_connection_are_answered_without_a_stall(
    tmp_path: Path, judge_env: None, parser: Parser
) -> None:
    count = 50
    with (
        server(tmp_path, parser) as (_, port),
        socket.create_connection(("127.0.0.1", port)) as sock,
    ):
        head = f"GET /v1/runs/unknown HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        request(sock, head)  # the first request pays for the imports
        start = time.monotonic()
        responses = [request(sock, head) for _ in range(count)]
        elapsed = time.monotonic() - start
    assert all(r.startswith(b"HTTP/1.1 404") for r in responses)
    # A delayed ACK held each response back by about 40 ms: 2 s for 50.
    assert elapsed < count * 0.040 / 2, f"{count} requests took {elapsed:.2f}s"


def test_a_client_trickling_its_headers_is_dropped_with_408_while_others_are_served(
    tmp_path: Path, judge_env: None, parser: Parser
) -> None:
    with server(tmp_path, parser, read_timeout=TIMEOUT) as (url, port):
        slow = socket.create_connection(("127.0.0.1", port))
        start = time.monotonic()
        slow.sendall(b"GET /v1/runs/x HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        served = []
        closed_after = None
        while closed_after is None and time.monotonic() - start < TIMEOUT + 2:
            try:
                slow.sendall(b"X")  # one byte of a header every 50 ms: never a whole head
            except OSError:
                break
            served.append(httpx.get(f"{url}/v1/runs/x").status_code)
            data, closed_after = until_closed(slow, 0.05)
        rest, _ = until_closed(slow, 1)
        slow.close()
        elapsed = time.monotonic() - start
    assert TIMEOUT * 0.9 <= elapsed < TIMEOUT + 1.5
    response = data + rest
    assert response.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), response
    assert response.endswith(b'{"detail":"the request did not arrive within 0.5 s"}')
    assert served and set(served) == {404}


def test_a_client_trickling_its_body_is_dropped_with_408(
    tmp_path: Path, judge_env: None, parser: Parser
) -> None:
    with server(tmp_path, parser, read_timeout=TIMEOUT) as (_, port):
        slow = socket.create_connection(("127.0.0.1", port))
        start = time.monotonic()
        slow.sendall(
            b"POST /v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"content-length: 1000\r\n\r\n{"
        )
        response = b""
        closed_after = None
        while closed_after is None and time.monotonic() - start < TIMEOUT + 2:
            try:
                slow.sendall(b" ")
            except OSError:
                break
            data, closed_after = until_closed(slow, 0.05)
            response += data
        slow.close()
    assert closed_after is not None, "the slow client was never disconnected"
    assert TIMEOUT * 0.9 <= time.monotonic() - start < TIMEOUT + 1.5
    assert response.startswith(b"HTTP/1.1 408 "), response


@pytest.mark.parametrize("after_a_request", [False, True])
def test_a_silent_connection_is_closed_after_the_read_timeout(
    tmp_path: Path, judge_env: None, parser: Parser, after_a_request: bool
) -> None:
    with (
        server(tmp_path, parser, read_timeout=TIMEOUT) as (_, port),
        socket.create_connection(("127.0.0.1", port)) as sock,
    ):
        if after_a_request:
            request(sock, b"GET /v1/runs/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data, closed_after = until_closed(sock, TIMEOUT + 2)
    assert closed_after is not None and TIMEOUT * 0.9 <= closed_after < TIMEOUT + 1
    assert data == b""  # nothing was asked, so nothing is answered


def test_a_request_sent_in_time_in_pieces_is_served(
    tmp_path: Path, judge_env: None, parser: Parser
) -> None:
    with (
        server(tmp_path, parser, read_timeout=TIMEOUT) as (_, port),
        socket.create_connection(("127.0.0.1", port)) as sock,
    ):
        sock.sendall(b"GET /v1/runs/x HTTP/1.1\r\n")
        time.sleep(TIMEOUT / 5)
        responses = [request(sock, b"Host: 127.0.0.1\r\n\r\n")]
        for _ in range(2):  # the deadline starts again after each response
            time.sleep(TIMEOUT * 0.6)
            responses.append(request(sock, b"GET /v1/runs/y HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
    assert all(r.startswith(b"HTTP/1.1 404") for r in responses)


def test_pipelined_requests_are_answered_in_order_then_the_deadline_runs_again(
    tmp_path: Path, judge_env: None, parser: Parser
) -> None:
    with (
        server(tmp_path, parser, read_timeout=TIMEOUT) as (_, port),
        socket.create_connection(("127.0.0.1", port)) as sock,
    ):
        # Two whole requests and the start of a third, sent at once.
        sock.sendall(
            b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            b"GET /v1/runs/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            b"GET /v1/runs/y HTTP/1.1\r\n"
        )
        data, closed_after = until_closed(sock, TIMEOUT + 2)
    assert closed_after is not None and TIMEOUT * 0.9 <= closed_after < TIMEOUT + 1.5
    first, second, third = data.split(b"HTTP/1.1 ")[1:]
    assert first.startswith(b"200 ") and first.endswith(b'{"status":"ok"}')
    assert second.startswith(b"404 ")
    assert third.startswith(b"408 ")  # the third never came whole


def test_the_server_parses_with_httptools_when_it_is_installed(tmp_path: Path) -> None:
    from verifier.server.serve import make_server
    from verifier.server.transport_httptools import HttpToolsDeadlineProtocol

    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    config = make_server(settings).config
    assert isinstance(config.http, type) and issubclass(config.http, HttpToolsDeadlineProtocol)
    assert config.loop == "asyncio"  # never uvloop: see verifier/server/serve.py


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_read_timeout_that_is_not_a_positive_number_is_a_usage_error(value: str) -> None:
    result = cli("serve", "--read-timeout", value)
    assert result.exit_code == 2
    assert "--read-timeout" in result.stderr and "Traceback" not in result.stderr
