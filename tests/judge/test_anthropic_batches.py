"""Message Batches through the Anthropic provider and the real SDK, against the local server."""

from __future__ import annotations

import pytest

from tests.judge._support import (
    API_KEY,
    MODEL,
    VERDICT,
    clean_provider_env,
    judge_request,
    run,
    serve,
)
from tests.judge.behaviours import errored, expired, overloaded, tool_use
from tests.judge.messages_server import MessagesServer
from verifier.llm.providers.anthropic import AnthropicProvider
from verifier.llm.types import ModelReply, ProviderError

server = pytest.fixture(serve, name="server")
provider_env = pytest.fixture(clean_provider_env, autouse=True, name="provider_env")

Outcome = ModelReply | ProviderError


async def _round_trip(
    server: MessagesServer, count: int
) -> tuple[list[tuple[str, dict[str, int]]], dict[str, Outcome]]:
    provider = AnthropicProvider(base_url=server.base_url)
    try:
        requests = [judge_request(custom_id=f"case-{n}") for n in range(count)]
        batch_id = await provider.submit_batch(requests)
        statuses = [await provider.batch_status(batch_id) for _ in range(server.batch_polls)]
        results = {
            custom_id: outcome async for custom_id, outcome in provider.batch_results(batch_id)
        }
        return statuses, results
    finally:
        await provider.aclose()


def test_batch_round_trip_with_an_errored_item() -> None:
    with MessagesServer(batch_polls=2) as server:
        server.script(
            tool_use(VERDICT),
            errored("prompt is too long"),
            tool_use({"pass": False, "reason": "no"}),
        )
        statuses, results = run(_round_trip(server, 3))

    assert statuses[0] == (
        "in_progress",
        {"processing": 3, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
    )
    assert statuses[1] == (
        "ended",
        {"processing": 0, "succeeded": 2, "errored": 1, "canceled": 0, "expired": 0},
    )
    assert set(results) == {"case-0", "case-1", "case-2"}
    first, failed, last = results["case-0"], results["case-1"], results["case-2"]
    assert isinstance(first, ModelReply) and first.tool_input == VERDICT
    assert first.served_model == MODEL and first.stop_reason == "tool_use"
    assert isinstance(last, ModelReply) and last.tool_input == {"pass": False, "reason": "no"}
    assert isinstance(failed, ProviderError) and not failed.retryable
    assert (
        failed.message
        == "anthropic: batch request errored: invalid_request_error: prompt is too long"
    )


def test_batch_sends_the_same_params_as_a_single_call(server: MessagesServer) -> None:
    run(_round_trip(server, 1))
    single = AnthropicProvider(base_url=server.base_url)

    async def one() -> None:
        try:
            await single.complete(judge_request(), timeout=5)
        finally:
            await single.aclose()

    run(one())

    create = next(r for r in server.requests if r.path == "/v1/messages/batches")
    assert create.body["requests"][0]["custom_id"] == "case-0"
    assert create.body["requests"][0]["params"] == server.model_calls()[0].body
    assert create.headers["authorization"] == f"Bearer {API_KEY}"


def test_overloaded_and_expired_items_are_retryable() -> None:
    with MessagesServer() as server:
        server.script(overloaded(), expired())
        _, results = run(_round_trip(server, 2))

    assert all(isinstance(r, ProviderError) and r.retryable for r in results.values())
    assert isinstance(results["case-1"], ProviderError)
    assert results["case-1"].message == "anthropic: batch request expired"


def test_results_of_an_unknown_batch_are_a_provider_error(server: MessagesServer) -> None:
    async def results() -> None:
        provider = AnthropicProvider(base_url=server.base_url)
        try:
            async for _ in provider.batch_results("msgbatch_missing"):
                pass
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as caught:
        run(results())

    assert caught.value.status == 404 and not caught.value.retryable


def test_batch_needs_unique_custom_ids(server: MessagesServer) -> None:
    provider = AnthropicProvider(base_url=server.base_url)

    with pytest.raises(ValueError, match="custom_id"):
        run(provider.submit_batch([judge_request(custom_id="a"), judge_request(custom_id="a")]))

    assert server.requests == []
