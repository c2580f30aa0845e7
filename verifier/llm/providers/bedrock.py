"""The Bedrock judge provider: Claude on Amazon Bedrock, through ``AsyncAnthropicBedrock``.

Calls are ``AnthropicProvider``'s, sent to ``POST /model/{model id}/invoke``.
Credentials are AWS's usual ones, read by the SDK and never kept here: the bearer token
``AWS_BEARER_TOKEN_BEDROCK`` when set, else whatever boto3 finds (``AWS_ACCESS_KEY_ID``
and ``AWS_SECRET_ACCESS_KEY``, ``AWS_PROFILE``, SSO, a role) to sign each call with
SigV4, which needs the ``bedrock`` extra. The region is the judge's ``region:``, else
``AWS_REGION`` or ``AWS_DEFAULT_REGION``. Bedrock offers no Message Batches through the
SDK, so ``--batch`` refuses a Bedrock judge.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from verifier.llm.providers._platform import (
    PlatformUnavailable,
    SdkMessages,
    check_settings,
    require,
    served_as,
)
from verifier.llm.providers._platform_ids import bedrock_base
from verifier.llm.providers.anthropic import AnthropicProvider, MessagesCaller
from verifier.llm.types import ProviderSpec

__all__ = ["BEARER_TOKEN_ENV", "BedrockPlatform", "make_bedrock_provider"]

BEARER_TOKEN_ENV = "AWS_BEARER_TOKEN_BEDROCK"

_NO_CREDENTIALS = (
    "bedrock: no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
    f"or AWS_PROFILE, or {BEARER_TOKEN_ENV}"
)


class BedrockPlatform:
    """Bedrock as ``AnthropicProvider``'s platform.

    Args:
        region: The AWS region (``None``: the SDK reads ``AWS_REGION``).
    """

    name = "bedrock"

    def __init__(self, *, region: str | None) -> None:
        self.region = region
        self.secret = os.environ.get(BEARER_TOKEN_ENV) or None
        self._served = served_as(bedrock_base)

    def client(self, base_url: str | None, max_retries: int) -> MessagesCaller:
        """An ``AsyncAnthropicBedrock`` sending to ``base_url`` (``None``: the region's
        ``bedrock-runtime`` endpoint)."""
        from anthropic import AsyncAnthropicBedrock

        return SdkMessages(
            AsyncAnthropicBedrock(
                aws_region=self.region, base_url=base_url, max_retries=max_retries
            )
        )

    def served(self, asked: str, served: str | None) -> str | None:
        """``asked`` when Bedrock answered with the Anthropic id it stands for."""
        return self._served(asked, served)


def _check_credentials(region: str | None) -> None:
    """Refuses, before any call, when boto3 finds no AWS credentials."""
    require("botocore", "bedrock", package="boto3", why="signing calls with AWS credentials")
    boto3: Any = importlib.import_module("boto3")
    botocore_exceptions: Any = importlib.import_module("botocore.exceptions")
    try:
        credentials = boto3.Session(region_name=region).get_credentials()
    except botocore_exceptions.BotoCoreError as exc:
        raise PlatformUnavailable(f"bedrock: AWS credentials: {exc}") from None
    if credentials is None:
        raise PlatformUnavailable(_NO_CREDENTIALS)


def make_bedrock_provider(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int
) -> AnthropicProvider:
    """The Bedrock provider of ``spec`` (a judge's, with its ``region``).

    Raises:
        PlatformUnavailable: No region, no credentials, or (signing with AWS
            credentials) no boto3.
    """
    check_settings(spec, base_url)
    region = getattr(spec, "region", None)
    if not os.environ.get(BEARER_TOKEN_ENV):
        _check_credentials(region)
    platform = BedrockPlatform(region=region)
    return AnthropicProvider(base_url=base_url, max_retries=max_retries, platform=platform)
