"""What the Bedrock, Vertex AI and Foundry providers share: the SDK client behind
``MessagesCaller``, the one-line refusals when a package or a setting is missing, and
the served model a platform reply counts as.

Each platform's own module says how its client is made and where its credentials come
from; the calls themselves are ``AnthropicProvider``'s (``anthropic.py``).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Mapping
from typing import Any

from verifier.errors import VerifierError
from verifier.llm.providers._platform_ids import missing_setting
from verifier.llm.types import ProviderSpec

__all__ = ["PlatformUnavailable", "SdkMessages", "check_settings", "require", "served_as"]


class PlatformUnavailable(VerifierError):
    """A platform judge cannot be made: a package or a setting it needs is missing."""


def require(module: str, provider: str, *, package: str, why: str) -> None:
    """Refuses, in one line naming the extra to install, when ``module`` is missing.

    Raises:
        PlatformUnavailable: ``module`` cannot be imported.
    """
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise PlatformUnavailable(
            f"{provider}: {why} needs {package}: pip install 'verifier-llm[{provider}]'"
        )


def check_settings(spec: ProviderSpec, base_url: str | None) -> None:
    """Refuses a judge whose platform lacks a region, project or endpoint (as
    ``verifier check`` does).

    Raises:
        PlatformUnavailable: One line naming the missing setting.
    """
    settings = {
        "region": getattr(spec, "region", None),
        "project": getattr(spec, "project", None),
        "base_url": base_url,
    }
    problem = missing_setting(spec.provider, settings)
    if problem:
        raise PlatformUnavailable(problem)


def served_as(base: Callable[[str], str]) -> Callable[[str, str | None], str | None]:
    """A ``Platform.served`` for ids that ``base`` maps to their Anthropic id: a reply
    naming the asked id's Anthropic id was served by the asked id."""

    def served(asked: str, named: str | None) -> str | None:
        return asked if named is not None and named in (asked, base(asked)) else named

    return served


class SdkMessages:
    """``MessagesCaller`` over one of the anthropic SDK's async platform clients.

    The body is decoded as it came (not through the SDK's types), as
    ``MessagesClient`` decodes it, so the reply mapping sees the same Message.
    """

    def __init__(self, client: Any) -> None:
        self._client = client

    async def create(self, params: Mapping[str, Any], *, timeout: float) -> Any:
        """Creates the Message and returns its decoded JSON.

        Raises:
            anthropic.APIError: What the SDK raised (mapped by the provider).
            json.JSONDecodeError: A success whose body is not JSON.
        """
        response = await self._client.messages.with_raw_response.create(**params, timeout=timeout)
        return json.loads(await response.text())

    async def aclose(self) -> None:
        """Closes the client's connections."""
        await self._client.close()
