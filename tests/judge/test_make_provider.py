"""Choosing a provider from a contract's judge spec."""

from __future__ import annotations

from verifier.contract.models import JudgeSpec
from verifier.llm.providers import make_provider
from verifier.llm.providers.anthropic import AnthropicProvider
from verifier.llm.providers.openai_compat import OpenAICompatProvider


def test_anthropic_spec_gives_the_anthropic_provider() -> None:
    spec = JudgeSpec(provider="anthropic", model="claude-haiku-4-5-20251001")

    provider = make_provider(spec, max_retries=5)

    assert isinstance(provider, AnthropicProvider)
    assert (provider.name, provider.base_url, provider.max_retries) == ("anthropic", None, 5)


def test_base_url_argument_wins_over_the_spec() -> None:
    spec = JudgeSpec(provider="openai", model="qwen2.5", base_url="http://spec:8000/v1")

    from_spec = make_provider(spec)
    overridden = make_provider(spec, base_url="http://cli:9000/v1")

    assert isinstance(from_spec, OpenAICompatProvider)
    assert isinstance(overridden, OpenAICompatProvider)
    assert from_spec.name == "openai" and from_spec.base_url == "http://spec:8000/v1"
    assert overridden.base_url == "http://cli:9000/v1"
