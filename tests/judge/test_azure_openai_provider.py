"""The Azure OpenAI provider through the openai SDK's ``AsyncAzureOpenAI``, against the
local server's ``/openai/deployments/{deployment}/chat/completions``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.judge._support import TOOL, VERDICT, judge_request, run, serve
from tests.judge.behaviours import http_error, rate_limited, tool_use
from tests.judge.messages_server import AZURE_TEST_KEY, MessagesServer
from verifier.llm.providers.azure_openai import DEFAULT_API_VERSION, AzureOpenAIProvider
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

pytest.importorskip("openai", reason="the azure extra (openai SDK) is not installed")

server = pytest.fixture(serve, name="server")

DEPLOYMENT = "prod-judge"
SERVED = "gpt-4o-2024-08-06"
TOKEN = "entra-test-token-do-not-leak"


@pytest.fixture(autouse=True)
def azure_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in's key, and nothing of the real environment's Azure settings."""
    for name in ("AZURE_OPENAI_AD_TOKEN", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_TEST_KEY)


@pytest.fixture(autouse=True)
def deployment(server: MessagesServer) -> None:
    server.deployments[DEPLOYMENT] = SERVED


SAMPLING = {"max_tokens": 256, "temperature": 0, "seed": 7}


def _request(**changes: Any) -> ModelRequest:
    return judge_request(
        **{"provider": "azure-openai", "model": DEPLOYMENT, "sampling": SAMPLING, **changes}
    )


async def _complete(endpoint: str, request: ModelRequest | None = None) -> ModelReply:
    provider = AzureOpenAIProvider(base_url=endpoint, max_retries=0)
    try:
        return await provider.complete(request or _request(), timeout=5.0)
    finally:
        await provider.aclose()


def _error(endpoint: str, *secrets: str, **options: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        run(_complete(endpoint, **options))
    for secret in (AZURE_TEST_KEY, *secrets):
        assert secret not in str(caught.value) and secret not in repr(caught.value)
    return caught.value


def test_a_deployment_answers_and_the_reply_names_the_served_model(
    server: MessagesServer,
) -> None:
    server.script(tool_use(VERDICT))

    reply = run(_complete(server.azure_endpoint))

    assert reply.served_model == SERVED
    assert (reply.stop_reason, reply.tool_input) == ("tool_use", VERDICT)
    (call,) = server.model_calls()
    assert call.path == f"/openai/deployments/{DEPLOYMENT}/chat/completions"
    assert call.headers["api-key"] == AZURE_TEST_KEY
    assert "authorization" not in call.headers
    assert call.body["tool_choice"] == {"type": "function", "function": {"name": TOOL.name}}
    assert (call.body["temperature"], call.body["seed"]) == (0, 7)


def test_the_api_version_is_the_default_unless_the_sdks_variable_sets_it(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(_complete(server.azure_endpoint))
    monkeypatch.setenv("OPENAI_API_VERSION", "2025-01-01-preview")
    run(_complete(server.azure_endpoint))

    first, second = (r for r in server.requests if r.method == "POST")
    assert [first.query, second.query] == [
        {"api-version": [DEFAULT_API_VERSION]},
        {"api-version": ["2025-01-01-preview"]},
    ]


def test_an_entra_id_token_is_sent_as_a_bearer_token(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", TOKEN)
    server.azure_key = TOKEN

    reply = run(_complete(server.azure_endpoint))

    assert reply.served_model == SERVED
    assert server.model_calls()[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_without_a_key_or_token_the_call_is_refused_naming_both(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")

    error = _error(server.azure_endpoint)

    assert error.message == "azure-openai: set AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN"
    assert not error.retryable and server.requests == []


def test_a_wrong_key_is_a_401_that_is_not_retried(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "azure-wrong-key-do-not-leak"
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", wrong)

    error = _error(server.azure_endpoint, wrong)

    assert (error.status, error.retryable) == (401, False)


def test_an_unknown_deployment_is_a_404(server: MessagesServer) -> None:
    error = _error(server.azure_endpoint, request=_request(model="no-such-deployment"))

    assert (error.status, error.retryable) == (404, False)
    assert "Resource not found" in error.message


def test_a_429_is_retryable_with_retry_after(server: MessagesServer) -> None:
    server.script(rate_limited(retry_after=2))

    error = _error(server.azure_endpoint)

    assert (error.retryable, error.status, error.retry_after) == (True, 429, 2.0)


def test_a_server_error_names_the_provider_and_not_the_key(server: MessagesServer) -> None:
    server.script(http_error(500, f"upstream saw api-key {AZURE_TEST_KEY}"))

    error = _error(server.azure_endpoint)

    assert error.message.startswith("azure-openai: HTTP 500") and error.retryable


def test_a_stored_prompt_is_refused_before_any_call(server: MessagesServer) -> None:
    from verifier.llm.types import StoredPromptCall

    stored = StoredPromptCall(id="pmpt_1", version="3", variables={})
    error = _error(server.azure_endpoint, request=_request(stored_prompt=stored))

    assert not error.retryable and "use provider: openai" in error.message
    assert server.requests == []
