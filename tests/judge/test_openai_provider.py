"""The OpenAI-compatible provider against the local server's ``/v1/chat/completions``."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.judge._support import TOOL, VERDICT, clean_provider_env, judge_request, run, serve
from tests.judge.behaviours import (
    delayed,
    http_error,
    malformed,
    max_tokens,
    no_model,
    rate_limited,
    refusal,
    server_error,
    tool_use,
)
from tests.judge.messages_server import MessagesServer
from verifier.llm.providers.openai_compat import OpenAICompatProvider
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

server = pytest.fixture(serve, name="server")
provider_env = pytest.fixture(clean_provider_env, autouse=True, name="provider_env")

LOCAL_MODEL = "qwen2.5-7b-instruct"
SECRET = "sk-openai-test-secret-do-not-leak"


def _request(**changes: Any) -> ModelRequest:
    fields: dict[str, Any] = {
        "provider": "openai",
        "model": LOCAL_MODEL,
        "sampling": {"max_tokens": 256, "temperature": 0, "seed": 7},
    }
    fields.update(changes)
    return judge_request(**fields)


async def _complete(
    base_url: str, request: ModelRequest | None = None, *, timeout: float = 5.0
) -> ModelReply:
    provider = OpenAICompatProvider(base_url=base_url, max_retries=0)
    try:
        return await provider.complete(request or _request(), timeout=timeout)
    finally:
        await provider.aclose()


def _error(base_url: str, **options: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        run(_complete(base_url, **options))
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
    return caught.value


def test_forced_function_call_round_trip(server: MessagesServer) -> None:
    server.script(tool_use(VERDICT))

    reply = run(_complete(server.openai_base_url))

    assert reply.served_model == LOCAL_MODEL
    assert reply.stop_reason == "tool_use"
    assert reply.tool_input == VERDICT
    assert reply.usage.as_dict()["input_tokens"] == 100
    assert reply.raw["choices"][0]["finish_reason"] == "tool_calls"


def test_request_body_forces_the_function(server: MessagesServer) -> None:
    request = _request(sampling={"max_tokens": 256, "temperature": 0, "seed": 7, "stop": ["END"]})

    run(_complete(server.openai_base_url, request))

    (call,) = server.model_calls()
    assert call.path == "/v1/chat/completions"
    assert call.body == {
        "model": LOCAL_MODEL,
        "max_tokens": 256,
        "temperature": 0,
        "seed": 7,
        "stop": ["END"],
        "messages": [
            {
                "role": "system",
                "content": "You are a strict judge. Answer through the tool.\n\nRun-specific note.",
            },
            {"role": "user", "content": request.user},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": TOOL.name,
                    "description": TOOL.description,
                    "parameters": TOOL.input_schema,
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": TOOL.name}},
    }
    assert "authorization" not in call.headers


def test_api_key_is_sent_when_set(server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)

    run(_complete(server.openai_base_url))

    assert server.model_calls()[0].headers["authorization"] == f"Bearer {SECRET}"


def test_truncated_arguments_give_no_tool_input_and_keep_raw(server: MessagesServer) -> None:
    server.script(max_tokens(partial_input=VERDICT))

    reply = run(_complete(server.openai_base_url))

    assert (reply.stop_reason, reply.tool_input) == ("max_tokens", None)
    arguments = reply.raw["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert arguments.startswith('{"pass"')


def test_refusal_and_missing_model(server: MessagesServer) -> None:
    server.script(refusal(), no_model(VERDICT))

    refused = run(_complete(server.openai_base_url))
    anonymous = run(_complete(server.openai_base_url))

    assert (refused.stop_reason, refused.tool_input) == ("refusal", None)
    assert anonymous.served_model is None and anonymous.tool_input == VERDICT


def test_429_is_retryable_with_retry_after(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    server.script(rate_limited(retry_after=2))

    error = _error(server.openai_base_url)

    assert (error.retryable, error.status, error.retry_after) == (True, 429, 2.0)


@pytest.mark.parametrize(
    ("behaviour", "retryable"), [(server_error(), True), (http_error(400), False)]
)
def test_status_errors(server: MessagesServer, behaviour: Any, retryable: bool) -> None:
    server.script(behaviour)

    error = _error(server.openai_base_url)

    assert error.retryable is retryable and error.status == behaviour.status


def test_timeout_is_retryable(server: MessagesServer) -> None:
    server.script(delayed(60, tool_use(VERDICT)))

    started = time.perf_counter()
    error = _error(server.openai_base_url, timeout=0.2)

    assert time.perf_counter() - started < 30  # cut off, not waited out
    assert error.retryable and "timed out" in error.message


def test_malformed_body_is_retryable(server: MessagesServer) -> None:
    server.script(malformed())

    error = _error(server.openai_base_url)

    assert error.retryable and "malformed JSON" in error.message


def test_refused_connection_is_retryable(refused_port: int) -> None:
    error = _error(f"http://127.0.0.1:{refused_port}/v1")

    assert error.retryable and error.status is None


def test_sampling_it_cannot_send_is_refused(server: MessagesServer) -> None:
    error = _error(server.openai_base_url, request=_request(sampling={"max_tokens": 9, "top_k": 5}))

    assert not error.retryable and "top_k" in error.message
    assert server.requests == []
