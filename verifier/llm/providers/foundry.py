"""The Foundry judge provider: Claude on Microsoft Foundry, through ``AsyncAnthropicFoundry``.

Calls are ``AnthropicProvider``'s, sent to ``POST {base_url}/v1/messages``, where the
model is the deployment's name. Credentials are never kept here: the resource's key
in ``ANTHROPIC_FOUNDRY_API_KEY`` when set, else a Microsoft Entra ID token from
azure-identity's ``DefaultAzureCredential`` (the ``foundry`` extra), asked for on each
call. The endpoint is the judge's ``base_url:``
(``https://RESOURCE.services.ai.azure.com/anthropic/``), else
``ANTHROPIC_FOUNDRY_RESOURCE`` or ``ANTHROPIC_FOUNDRY_BASE_URL``. Foundry offers no
Message Batches through the SDK, so ``--batch`` refuses a Foundry judge.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from verifier.llm.providers._platform import SdkMessages, check_settings, require
from verifier.llm.providers.anthropic import AnthropicProvider, MessagesCaller
from verifier.llm.types import ProviderSpec

__all__ = ["API_KEY_ENV", "FoundryPlatform", "make_foundry_provider"]

API_KEY_ENV = "ANTHROPIC_FOUNDRY_API_KEY"

_ENTRA_SCOPE = "https://ai.azure.com/.default"


class FoundryPlatform:
    """Foundry as ``AnthropicProvider``'s platform.

    Args:
        api_key: The resource's key, or ``None``.
        token_provider: Gives an Entra ID token for each call, without a key.
    """

    name = "foundry"

    def __init__(
        self, *, api_key: str | None, token_provider: Callable[[], str] | None = None
    ) -> None:
        self.secret = api_key
        self._token_provider = token_provider

    def client(self, base_url: str | None, max_retries: int) -> MessagesCaller:
        """An ``AsyncAnthropicFoundry`` sending to ``base_url`` (``None``: the resource
        the SDK's variables name)."""
        from anthropic import AsyncAnthropicFoundry

        # Without a base_url the SDK reads ANTHROPIC_FOUNDRY_RESOURCE (or _BASE_URL).
        endpoint: dict[str, Any] = {"base_url": base_url} if base_url else {}
        return SdkMessages(
            AsyncAnthropicFoundry(
                api_key=self.secret,
                azure_ad_token_provider=self._token_provider,
                max_retries=max_retries,
                **endpoint,
            )
        )

    def served(self, asked: str, served: str | None) -> str | None:
        """What Foundry says served the call: a deployment's name is its owner's choice,
        so only a reply naming the deployment's name counts as served as asked."""
        return served


def _entra_token_provider() -> Callable[[], str]:
    require("azure.identity", "foundry", package="azure-identity", why="signing in with Entra ID")
    identity: Any = importlib.import_module("azure.identity")
    provider: Callable[[], str] = identity.get_bearer_token_provider(
        identity.DefaultAzureCredential(), _ENTRA_SCOPE
    )
    return provider


def make_foundry_provider(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int
) -> AnthropicProvider:
    """The Foundry provider of ``spec``.

    Raises:
        PlatformUnavailable: No endpoint, or (without a key) no azure-identity.
    """
    check_settings(spec, base_url)
    key = os.environ.get(API_KEY_ENV) or None
    platform = FoundryPlatform(api_key=key, token_provider=None if key else _entra_token_provider())
    return AnthropicProvider(base_url=base_url, max_retries=max_retries, platform=platform)
