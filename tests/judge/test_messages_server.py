"""The local Messages API server itself, spoken to with plain urllib."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.judge.behaviours import malformed, rate_limited, text_only, tool_use
from tests.judge.messages_server import MessagesServer


def _post(url: str, body: Any) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def _message_request(tool: str = "verdict") -> dict[str, Any]:
    return {
        "model": "m-1",
        "max_tokens": 8,
        "messages": [],
        "tool_choice": {"type": "tool", "name": tool},
    }


def test_script_comes_first_then_the_default_responder() -> None:
    with MessagesServer(default=lambda request: text_only("default")) as server:
        server.script(tool_use({"pass": False}), rate_limited(retry_after=3, retry_after_ms=250))
        url = f"{server.base_url}/v1/messages"
        first = _post(url, _message_request("grade"))
        second = _post(url, _message_request())
        third = _post(url, _message_request())

    body = json.loads(first[2])
    assert body["model"] == "m-1" and body["stop_reason"] == "tool_use"
    assert body["content"] == [
        {"type": "tool_use", "id": "toolu_msg_0001", "name": "grade", "input": {"pass": False}}
    ]
    assert second[0] == 429
    assert (second[1]["retry-after"], second[1]["retry-after-ms"]) == ("3", "250")
    assert json.loads(second[2])["error"]["type"] == "rate_limit_error"
    assert json.loads(third[2])["content"] == [{"type": "text", "text": "default"}]
    assert [call.body["max_tokens"] for call in server.model_calls()] == [8, 8, 8]


def test_malformed_body_is_not_json() -> None:
    with MessagesServer() as server:
        server.script(malformed())
        status, _, payload = _post(f"{server.base_url}/v1/messages", _message_request())

    assert status == 200
    with pytest.raises(ValueError):
        json.loads(payload)


def test_unknown_routes_and_batches_are_404() -> None:
    with MessagesServer() as server:
        status, _, payload = _post(f"{server.base_url}/v1/complete", {})
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{server.base_url}/v1/messages/batches/nope", timeout=5)

    assert status == 404 and json.loads(payload)["error"]["type"] == "not_found_error"
    assert missing.value.code == 404
