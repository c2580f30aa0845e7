"""The provider's own Messages client against the real Anthropic SDK, answer by answer.

Both are driven through the same scripted answers of the local Messages API stand-in:
they must make the same attempts with the same body and headers, and end in the same
reply or the same ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import anthropic
import pytest

from tests.judge._local_http import origin, send, start, stop
from tests.judge._support import API_KEY, VERDICT, judge_request, run
from tests.judge.behaviours import (
    Behaviour,
    delayed,
    http_error,
    malformed,
    no_model,
    overloaded,
    rate_limited,
    refusal,
    server_error,
    text_only,
    tool_use,
)
from tests.judge.messages_server import MessagesServer
from verifier.llm.providers._anthropic_wire import (
    error_from_exception,
    message_params,
    reply_from_message,
)
from verifier.llm.providers._messages_http import MessagesClient
from verifier.llm.types import ModelReply, ProviderError

FAST = {"retry-after-ms": "5"}
# Headers whose values must agree (the SDK adds its own x-stainless-* telemetry too).
SHARED_HEADERS = (
    "authorization",
    "anthropic-version",
    "content-type",
    "accept",
    "x-stainless-retry-count",
)


@dataclass(frozen=True)
class Outcome:
    """How one call ended, and what the server saw of it."""

    reply: ModelReply | None
    error: ProviderError | None
    bodies: list[Any]
    headers: list[dict[str, str]]


async def _through_sdk(base_url: str, max_retries: int, timeout: float) -> Any:
    client = anthropic.AsyncAnthropic(api_key=API_KEY, base_url=base_url, max_retries=max_retries)
    try:
        message = await client.messages.create(**message_params(judge_request()), timeout=timeout)
        return message.model_dump(mode="json")
    finally:
        await client.close()


async def _through_client(base_url: str, max_retries: int, timeout: float) -> Any:
    client = MessagesClient(api_key=API_KEY, base_url=base_url, max_retries=max_retries)
    try:
        return await client.create(message_params(judge_request()), timeout=timeout)
    finally:
        await client.aclose()


def _call(
    way: str, script: list[Behaviour], *, max_retries: int = 2, timeout: float = 5.0
) -> Outcome:
    through = _through_sdk if way == "sdk" else _through_client
    with MessagesServer() as server:
        server.script(*script)
        reply = error = None
        try:
            message = run(through(server.base_url, max_retries, timeout))
            reply = reply_from_message(message, tool_name="record_verdict")
        except Exception as exc:
            error = error_from_exception(exc, timeout=timeout, secret=API_KEY)
        calls = server.model_calls()
    return Outcome(
        reply,
        error,
        [call.body for call in calls],
        [{name: call.headers.get(name, "") for name in SHARED_HEADERS} for call in calls],
    )


def _same_reply(ours: ModelReply, sdk: ModelReply) -> None:
    for name in ("served_model", "stop_reason", "tool_input", "text", "usage"):
        assert getattr(ours, name) == getattr(sdk, name), name
    assert ours.response_id is not None and sdk.response_id is not None
    # The client keeps the Message as it came; the SDK's dump adds the fields it knows
    # of as nulls. Everything the API sent is in both, equal but for the fresh ids.
    _within(ours.raw, sdk.raw)


def _within(sent: Any, dumped: Any) -> None:
    """``sent`` is ``dumped`` less keys whose value is null there, ids aside."""
    if isinstance(sent, dict):
        assert isinstance(dumped, dict)
        assert {k for k, v in dumped.items() if v is not None} <= set(sent)
        for key, value in sent.items():
            if key != "id":
                _within(value, dumped[key])
    elif isinstance(sent, list):
        assert isinstance(dumped, list) and len(sent) == len(dumped)
        for one, other in zip(sent, dumped, strict=True):
            _within(one, other)
    else:
        assert sent == dumped


def _same_error(ours: ProviderError, sdk: ProviderError) -> None:
    assert (ours.retryable, ours.status) == (sdk.retryable, sdk.status)
    assert ours.retry_after == pytest.approx(sdk.retry_after) if sdk.retry_after else True
    assert ours.message == sdk.message


SCRIPTS: dict[str, tuple[list[Behaviour], dict[str, Any]]] = {
    "tool_use": ([tool_use(VERDICT, text="Checking.")], {}),
    "text_only": ([text_only()], {}),
    "refusal": ([refusal()], {}),
    "no_model": ([no_model(VERDICT)], {}),
    "429_then_ok": ([rate_limited(retry_after=None, retry_after_ms=5), tool_use(VERDICT)], {}),
    "500_529_then_ok": ([server_error(headers=FAST), overloaded(headers=FAST)], {}),
    "500_exhausts_retries": ([server_error(headers=FAST)] * 3, {}),
    "529_no_retries_left": ([overloaded(headers={"retry-after-ms": "20"})] * 2, {"max_retries": 1}),
    "408_and_409_retried": ([http_error(408, headers=FAST), http_error(409, headers=FAST)], {}),
    "400_not_retried": ([http_error(400, f"bad input, key {API_KEY}")], {}),
    "401_not_retried": ([http_error(401)], {}),
    "should_retry_false": ([server_error(headers={"x-should-retry": "false"})], {}),
    "should_retry_true": ([http_error(400, headers={"x-should-retry": "true", **FAST})], {}),
    "retry_after_seconds": ([rate_limited(retry_after=7)], {"max_retries": 0}),
    "malformed_body": ([malformed()], {}),
    "timeout": ([delayed(3, tool_use(VERDICT))] * 2, {"max_retries": 1, "timeout": 0.2}),
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_client_and_sdk_end_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    script, options = SCRIPTS[name]

    ours = _call("client", script, **options)
    sdk = _call("sdk", script, **options)

    assert len(ours.bodies) == len(sdk.bodies) >= 1
    assert ours.bodies == sdk.bodies
    assert ours.headers == sdk.headers
    assert (ours.reply is None) == (sdk.reply is None)
    if ours.reply is not None and sdk.reply is not None:
        _same_reply(ours.reply, sdk.reply)
    if ours.error is not None and sdk.error is not None:
        _same_error(ours.error, sdk.error)
        assert API_KEY not in ours.error.message


def test_connection_refused_is_retried_then_a_connection_error() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    errors = []
    for through in (_through_client, _through_sdk):
        with pytest.raises(Exception) as caught:
            asyncio.run(through(url, 1, 2.0))
        errors.append(error_from_exception(caught.value, timeout=2.0, secret=API_KEY))

    ours, sdk = errors
    assert ours.retryable and sdk.retryable
    assert ours.message == sdk.message
    assert ours.message.startswith("anthropic: connection error:")


@contextmanager
def redirecting_to(target: str) -> Iterator[str]:
    """A server on 127.0.0.1 answering every POST with a 307 to the same path at ``target``."""

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            send(self, 307, {"location": f"{target}{self.path}"}, b"")

        def log_message(self, *args: Any) -> None:
            pass

    httpd, thread = start(Redirect)
    try:
        yield origin(httpd)
    finally:
        stop(httpd, thread)


def test_a_redirect_is_followed_as_the_sdk_follows_it() -> None:
    outcomes = []
    for through in (_through_client, _through_sdk):
        with MessagesServer() as server, redirecting_to(server.base_url) as front:
            message = run(through(front, 0, 5.0))
            outcomes.append((message["content"], [call.body for call in server.model_calls()]))

    (ours, our_bodies), (sdk, sdk_bodies) = outcomes
    assert len(our_bodies) == 1 and our_bodies == sdk_bodies
    _within(ours, sdk)
