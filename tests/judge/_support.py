"""Requests, a fake key, fixtures and a runner shared by the provider tests.

Each provider test module binds the fixtures itself (``server = pytest.fixture(serve,
name="server")``), so they stay out of the package's ``conftest.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from tests.judge.messages_server import MessagesServer
from verifier.llm.providers.anthropic import AnthropicProvider
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, SystemBlock, ToolSpec

T = TypeVar("T")

MODEL = "claude-haiku-4-5-20251001"
API_KEY = "sk-ant-test-0123456789-do-not-leak"
TOOL = ToolSpec(
    name="record_verdict",
    description="Record the verdict.",
    input_schema={
        "type": "object",
        "properties": {"pass": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["pass", "reason"],
    },
)
VERDICT = {"pass": True, "reason": "The output notes the missing revenue figure."}


def judge_request(**changes: Any) -> ModelRequest:
    """A rendered binary request with a cached static system block."""
    fields: dict[str, Any] = {
        "provider": "anthropic",
        "model": MODEL,
        "system": (
            SystemBlock("You are a strict judge. Answer through the tool.", cache=True),
            SystemBlock("Run-specific note."),
        ),
        "user": "<output nonce=abc>The revenue is not reported.</output nonce=abc>",
        "tool": TOOL,
        "sampling": {"max_tokens": 512},
        "verdict": "binary",
        "prompt_sha": "a" * 64,
        "sampling_sha": "b" * 64,
        "custom_id": "case-1.claim-1",
    }
    fields.update(changes)
    return ModelRequest(**fields)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Runs one coroutine on a fresh event loop."""
    return asyncio.run(coroutine)


def serve() -> Iterator[MessagesServer]:
    """Fixture body: a running local server with the default (passing) responder."""
    with MessagesServer() as running:
        yield running


def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixture body: a fake Anthropic key, and no endpoint or key from the real environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def complete(
    server: MessagesServer,
    request: ModelRequest | None = None,
    *,
    timeout: float = 5.0,
    max_retries: int = 2,
) -> ModelReply:
    """One call through a fresh ``AnthropicProvider`` pointed at ``server``."""
    provider = AnthropicProvider(base_url=server.base_url, max_retries=max_retries)
    try:
        return await provider.complete(request or judge_request(), timeout=timeout)
    finally:
        await provider.aclose()


def complete_error(server: MessagesServer, **options: Any) -> ProviderError:
    """The ``ProviderError`` of one call, checked to be one line and free of the key."""
    with pytest.raises(ProviderError) as caught:
        run(complete(server, **options))
    error = caught.value
    assert API_KEY not in str(error) and API_KEY not in repr(error)
    assert "\n" not in error.message
    return error
