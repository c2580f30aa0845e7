"""The Host check against DNS rebinding, on a real server: requests naming this server
are served, forged Host headers get a one-line 421, and --allowed-host adds names."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import cli
from tests.server._support import TOKEN, running
from verifier.server import ServerSettings
from verifier.server.hosts import REFUSED

FORGED = [
    "rebind.example",
    "rebind.example:{port}",
    "localhost.rebind.example:{port}",
    "127.0.0.1.nip.io:{port}",
    "[::1].rebind.example",
    "localhost:{port}@rebind.example",
    "localhost:99999",
    "",
]


def statuses(tmp_path: Path, hosts: list[str], **overrides: Any) -> dict[str, int]:
    """The status of ``GET /v1/runs/unknown`` sent with each Host header value."""
    settings = ServerSettings(**({"port": 0, "store": str(tmp_path / "gaps.db")} | overrides))
    found = {}
    with running(settings) as url, httpx.Client(base_url=url) as client:
        port = url.rsplit(":", 1)[1]
        headers = {"authorization": f"Bearer {TOKEN}"} if settings.token else {}
        for host in hosts:
            value = host.format(port=port)
            response = client.get("/v1/runs/unknown", headers={**headers, "host": value})
            if response.status_code == 421:
                assert response.json() == {"detail": REFUSED}
            found[value] = response.status_code
    return found


def test_loopback_names_and_the_bound_address_are_served(tmp_path: Path, judge_env: None) -> None:
    hosts = ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "LOCALHOST", "[::1]:{port}"]
    assert set(statuses(tmp_path, hosts).values()) == {404}


def test_a_forged_host_is_refused_with_one_line_421(tmp_path: Path, judge_env: None) -> None:
    found = statuses(tmp_path, FORGED)
    assert set(found.values()) == {421}, found


def test_a_forged_host_is_refused_even_with_the_token(tmp_path: Path, judge_env: None) -> None:
    found = statuses(tmp_path, ["rebind.example:{port}"], host="0.0.0.0", token=TOKEN)
    assert set(found.values()) == {421}


def test_a_server_bound_to_every_address_serves_any_address_but_no_other_name(
    tmp_path: Path, judge_env: None
) -> None:
    found = statuses(
        tmp_path,
        ["192.0.2.7:{port}", "[2001:db8::7]", "box.example:{port}"],
        host="0.0.0.0",
        token=TOKEN,
    )
    assert list(found.values()) == [404, 404, 421]


def test_allowed_hosts_add_names_for_any_port_or_one(tmp_path: Path, judge_env: None) -> None:
    found = statuses(
        tmp_path,
        [
            "api.example.com",
            "API.example.com:443",
            "proxy.example:8443",
            "proxy.example:9000",
            "other.example",
        ],
        allowed_hosts=("api.example.com", "proxy.example:8443"),
    )
    assert list(found.values()) == [404, 404, 404, 421, 421]


def test_a_request_without_a_host_header_is_refused(tmp_path: Path, judge_env: None) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    with running(settings) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /v1/runs/unknown HTTP/1.0\r\n\r\n")
            response = b""
            while chunk := sock.recv(65536):
                response += chunk
    assert response.startswith(b"HTTP/1.1 421 ")


@pytest.mark.parametrize("entry", ["api example.com", "api.example.com:https", "::1", "a/b", ""])
def test_an_allowed_host_that_is_no_host_is_a_one_line_error(tmp_path: Path, entry: str) -> None:
    result = cli(
        "serve",
        "--allowed-host",
        entry,
        "--store",
        str(tmp_path / "gaps.db"),
        env={"VERIFIER_SERVE_TOKEN": None},
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: --allowed-host {entry!r}: not a host name")
    assert result.stderr.count("\n") == 1
