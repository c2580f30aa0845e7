"""The platform providers one call at a time, through the anthropic SDK's real platform
clients against the local stand-in: errors read as the provider's own, a credential
echoed back is masked, a reply naming another model is recorded as that model, and
Foundry's Entra ID token goes as a bearer token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.judge._support import judge_request, run
from tests.judge.behaviours import http_error, rate_limited, tool_use
from tests.judge.messages_server import MessagesServer
from verifier.llm.providers.anthropic import AnthropicProvider
from verifier.llm.providers.bedrock import BedrockPlatform
from verifier.llm.providers.foundry import FoundryPlatform
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

BEDROCK_MODEL = "anthropic.claude-haiku-4-5-20251001-v1:0"
TOKEN = "bedrock-bearer-canary-9876543210"
VERDICT = {"pass": True, "reason": "polite"}


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=lambda request: tool_use(VERDICT)) as running:
        yield running


@pytest.fixture
def bedrock(server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> AnthropicProvider:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", TOKEN)
    platform = BedrockPlatform(region="us-west-2")
    return AnthropicProvider(base_url=server.base_url, max_retries=0, platform=platform)


async def _complete(provider: AnthropicProvider, request: ModelRequest) -> ModelReply:
    try:
        return await provider.complete(request, timeout=5.0)
    finally:
        await provider.aclose()


async def _error(provider: AnthropicProvider, request: ModelRequest) -> ProviderError:
    with pytest.raises(ProviderError) as raised:
        await _complete(provider, request)
    return raised.value


def test_a_bedrock_reply_naming_its_anthropic_id_is_served_as_the_bedrock_id(
    server: MessagesServer, bedrock: AnthropicProvider
) -> None:
    reply = run(_complete(bedrock, judge_request(provider="bedrock", model=BEDROCK_MODEL)))

    assert bedrock.name == "bedrock"
    assert reply.served_model == BEDROCK_MODEL
    assert reply.raw["model"] == "claude-haiku-4-5-20251001"  # what Bedrock answered
    assert reply.tool_input == VERDICT
    [call] = server.model_calls()
    assert call.path == f"/model/{BEDROCK_MODEL}/invoke"
    assert call.headers["authorization"] == f"Bearer {TOKEN}"


def test_a_bedrock_reply_naming_another_model_is_recorded_as_that_model(
    server: MessagesServer, bedrock: AnthropicProvider
) -> None:
    server.script(tool_use(VERDICT, model="claude-sonnet-4-5-20250929"))

    reply = run(_complete(bedrock, judge_request(provider="bedrock", model=BEDROCK_MODEL)))

    assert reply.served_model == "claude-sonnet-4-5-20250929"


def test_a_bedrock_rate_limit_is_a_retryable_bedrock_error(
    server: MessagesServer, bedrock: AnthropicProvider
) -> None:
    server.script(rate_limited(retry_after=7))

    error = run(_error(bedrock, judge_request(provider="bedrock", model=BEDROCK_MODEL)))

    assert str(error).startswith("bedrock: HTTP 429: rate_limit_error")
    assert error.retryable and error.retry_after == 7 and error.status == 429


def test_a_credential_echoed_in_an_error_is_masked(
    server: MessagesServer, bedrock: AnthropicProvider
) -> None:
    server.script(http_error(403, f"the token {TOKEN} is not allowed here"))

    error = run(_error(bedrock, judge_request(provider="bedrock", model=BEDROCK_MODEL)))

    assert TOKEN not in str(error) and "***" in str(error)
    assert str(error).startswith("bedrock: HTTP 403") and not error.retryable


def test_a_platform_provider_offers_no_batches(bedrock: AnthropicProvider) -> None:
    request = judge_request(provider="bedrock", model=BEDROCK_MODEL)

    error = run(_batch_error(bedrock, request))

    assert str(error) == (
        "bedrock: Message Batches are not offered through the bedrock client of the anthropic SDK"
    )


async def _batch_error(provider: AnthropicProvider, request: ModelRequest) -> ProviderError:
    with pytest.raises(ProviderError) as raised:
        await provider.submit_batch([request])
    return raised.value


def test_foundry_sends_an_entra_id_token_as_a_bearer_token(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_FOUNDRY_API_KEY", raising=False)
    platform = FoundryPlatform(api_key=None, token_provider=lambda: "entra-token-for-test")
    provider = AnthropicProvider(
        base_url=f"{server.base_url}/anthropic/", max_retries=0, platform=platform
    )
    model = "claude-haiku-4-5-20251001"

    reply = run(_complete(provider, judge_request(provider="foundry", model=model)))

    assert reply.served_model == model
    [call] = server.model_calls()
    assert call.path == "/anthropic/v1/messages"
    assert call.headers["authorization"] == "Bearer entra-token-for-test"
    assert "api-key" not in call.headers
