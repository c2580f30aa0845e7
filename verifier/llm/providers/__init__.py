"""Model providers: who answers a rendered ``ModelRequest``.

``make_provider`` builds one from a judge's or a prompt system's spec, through the
provider's entry in ``verifier.llm.providers.registry``. Provider modules (and the
SDKs behind them) are imported only when a provider of that kind is made, so the
command line starts fast and the ``openai`` extra stays optional.
"""

from __future__ import annotations

from typing import Any

from verifier.llm.providers.registry import provider_entry
from verifier.llm.types import ModelProvider, ProviderSpec

__all__ = ["make_provider"]


def make_provider(
    spec: ProviderSpec,
    *,
    base_url: str | None = None,
    max_retries: int = 2,
    **replay_options: Any,
) -> ModelProvider:
    """The provider that answers ``spec``'s calls.

    Args:
        spec: The judge or prompt system as the contract declares it.
        base_url: Endpoint override; wins over ``spec.base_url``.
        max_retries: Retries the provider makes itself before raising
            (the Anthropic SDK's; for ``openai``, failed connections only).
        **replay_options: Passed to the replay provider, ignored by the others.

    Returns:
        A provider whose ``name`` is ``spec.provider``.

    Raises:
        ValueError: No provider of that name is registered.
    """
    factory = provider_entry(spec.provider).factory
    return factory(
        spec, base_url=base_url or spec.base_url, max_retries=max_retries, **replay_options
    )
