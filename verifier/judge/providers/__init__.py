"""Judge providers: who answers a rendered ``JudgeRequest``.

``make_provider`` builds one from a contract's judge spec. Provider modules (and the
SDKs behind them) are imported only when a provider of that kind is made, so the
command line starts fast and the ``openai`` extra stays optional.
"""

from __future__ import annotations

import importlib
from typing import Any

from verifier.contract.models import JudgeSpec
from verifier.judge.types import JudgeProvider

__all__ = ["make_provider"]


def make_provider(
    spec: JudgeSpec,
    *,
    base_url: str | None = None,
    max_retries: int = 2,
    **replay_options: Any,
) -> JudgeProvider:
    """The provider that answers ``spec``'s calls.

    Args:
        spec: The judge as the contract declares it.
        base_url: Endpoint override; wins over ``spec.base_url``.
        max_retries: Retries the provider makes itself before raising
            (the Anthropic SDK's; for ``openai``, failed connections only).
        **replay_options: Passed to the replay provider, ignored by the others.

    Returns:
        A provider whose ``name`` is ``spec.provider``.
    """
    url = base_url or spec.base_url
    if spec.provider == "anthropic":
        from verifier.judge.providers.anthropic import AnthropicProvider

        return AnthropicProvider(base_url=url, max_retries=max_retries)
    if spec.provider == "openai":
        from verifier.judge.providers.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(base_url=url, max_retries=max_retries)
    replay = importlib.import_module("verifier.judge.providers.replay")
    provider: JudgeProvider = replay.ReplayProvider(spec, **replay_options)
    return provider
