"""The Anthropic provider's Messages calls against a local Messages API server."""

from __future__ import annotations

import asyncio

import pytest

from tests.judge._support import (
    API_KEY,
    MODEL,
    TOOL,
    VERDICT,
    clean_provider_env,
    complete,
    judge_request,
    run,
    serve,
)
from tests.judge.behaviours import (
    max_tokens,
    no_model,
    refusal,
    text_only,
    tool_use,
)
from tests.judge.messages_server import MessagesServer, together
from verifier.llm.providers.anthropic import AnthropicProvider
from verifier.llm.types import ModelReply

server = pytest.fixture(serve, name="server")
provider_env = pytest.fixture(clean_provider_env, autouse=True, name="provider_env")


def test_tool_use_reply_maps_every_field(server: MessagesServer) -> None:
    usage = {
        "input_tokens": 900,
        "output_tokens": 40,
        "cache_read_input_tokens": 800,
        "cache_creation_input_tokens": 64,
    }
    server.script(tool_use(VERDICT, usage=usage, text="Checking the output."))

    reply = run(complete(server))

    assert reply.served_model == MODEL
    assert reply.stop_reason == "tool_use"
    assert reply.tool_input == VERDICT
    assert reply.text == "Checking the output."
    assert reply.usage.as_dict() == usage
    assert reply.response_id is not None and reply.response_id.startswith("msg_")
    assert reply.latency_ms > 0
    assert reply.raw["model"] == MODEL
    assert reply.raw["content"][1]["input"] == VERDICT


def test_sends_exact_body_with_cache_control_and_forced_tool(server: MessagesServer) -> None:
    request = judge_request(sampling={"max_tokens": 512, "stop_sequences": ["</verdict>"]})

    run(complete(server, request))

    (call,) = server.model_calls()
    assert call.path == "/v1/messages"
    assert call.body == {
        "model": MODEL,
        "max_tokens": 512,
        "stop_sequences": ["</verdict>"],
        "system": [
            {
                "type": "text",
                "text": "You are a strict judge. Answer through the tool.",
                "cache_control": {"type": "ephemeral"},
            },
            {"type": "text", "text": "Run-specific note."},
        ],
        "messages": [{"role": "user", "content": request.user}],
        "tools": [
            {"name": TOOL.name, "description": TOOL.description, "input_schema": TOOL.input_schema}
        ],
        "tool_choice": {"type": "tool", "name": TOOL.name},
    }
    assert "temperature" not in call.body


def test_api_key_is_sent_as_bearer_token(server: MessagesServer) -> None:
    run(complete(server))

    headers = server.model_calls()[0].headers
    assert headers["authorization"] == f"Bearer {API_KEY}"
    assert "x-api-key" not in headers
    assert headers["anthropic-version"]


def test_refusal_is_surfaced_in_stop_reason(server: MessagesServer) -> None:
    server.script(refusal())

    reply = run(complete(server))

    assert (reply.stop_reason, reply.tool_input) == ("refusal", None)
    assert reply.text == "I can't help with that."


def test_max_tokens_without_tool_call(server: MessagesServer) -> None:
    server.script(max_tokens())

    reply = run(complete(server))

    assert (reply.stop_reason, reply.tool_input) == ("max_tokens", None)


def test_max_tokens_with_truncated_tool_call_keeps_stop_reason(server: MessagesServer) -> None:
    server.script(max_tokens(partial_input={"pass": True}))

    reply = run(complete(server))

    assert reply.stop_reason == "max_tokens"
    assert reply.tool_input == {"pass": True}


def test_missing_model_gives_no_served_model(server: MessagesServer) -> None:
    server.script(no_model(VERDICT))

    reply = run(complete(server))

    assert reply.served_model is None
    assert reply.tool_input == VERDICT


def test_text_only_answer_has_no_tool_input(server: MessagesServer) -> None:
    server.script(text_only("It passes."))

    reply = run(complete(server))

    assert (reply.stop_reason, reply.tool_input, reply.text) == ("end_turn", None, "It passes.")


def test_base_url_from_environment(server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)

    async def call() -> ModelReply:
        provider = AnthropicProvider()
        try:
            return await provider.complete(judge_request(), timeout=5)
        finally:
            await provider.aclose()

    assert run(call()).served_model == MODEL
    assert len(server.model_calls()) == 1


def test_request_base_url_wins(server: MessagesServer) -> None:
    async def call() -> ModelReply:
        provider = AnthropicProvider(base_url="http://127.0.0.1:9")
        try:
            return await provider.complete(judge_request(base_url=server.base_url), timeout=5)
        finally:
            await provider.aclose()

    assert run(call()).tool_input is not None


def test_concurrent_calls_overlap() -> None:
    # No call is answered before all eight are in flight: calls made one after the
    # other would leave the first waiting alone until the server's patience ran out.
    with MessagesServer(default=together(8, patience=10)) as server:

        async def many() -> list[ModelReply]:
            provider = AnthropicProvider(base_url=server.base_url)
            try:
                calls = [provider.complete(judge_request(), timeout=30) for _ in range(8)]
                return await asyncio.gather(*calls)
            finally:
                await provider.aclose()

        replies = run(many())

    assert len(replies) == 8 and all(reply.tool_input is not None for reply in replies)
    assert server.max_in_flight == 8
