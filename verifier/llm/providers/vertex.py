"""The Vertex AI judge provider: Claude on Google Cloud, through ``AsyncAnthropicVertex``.

Calls are ``AnthropicProvider``'s, sent to ``POST .../projects/{project}/locations/
{region}/publishers/anthropic/models/{model}:rawPredict``. Credentials are Google's
usual ones, never kept here: an OAuth access token in ``GOOGLE_OAUTH_ACCESS_TOKEN``
when set, else application default credentials (``gcloud auth application-default
login``, ``GOOGLE_APPLICATION_CREDENTIALS``, a service account), which need the
``vertex`` extra. Region and project are the judge's ``region:`` and ``project:``, else
``CLOUD_ML_REGION`` and ``ANTHROPIC_VERTEX_PROJECT_ID``. Vertex AI offers no Message
Batches through the SDK, so ``--batch`` refuses a Vertex judge.
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
from verifier.llm.providers._platform_ids import vertex_base
from verifier.llm.providers.anthropic import AnthropicProvider, MessagesCaller
from verifier.llm.types import ProviderSpec

__all__ = ["ACCESS_TOKEN_ENV", "VertexPlatform", "make_vertex_provider"]

ACCESS_TOKEN_ENV = "GOOGLE_OAUTH_ACCESS_TOKEN"

_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_NO_CREDENTIALS = (
    "vertex: no Google credentials found: run `gcloud auth application-default login`, "
    f"or set GOOGLE_APPLICATION_CREDENTIALS, or {ACCESS_TOKEN_ENV}"
)


class VertexPlatform:
    """Vertex AI as ``AnthropicProvider``'s platform.

    Args:
        region: The region (``None``: the SDK reads ``CLOUD_ML_REGION``).
        project: The project (``None``: ``ANTHROPIC_VERTEX_PROJECT_ID``, then the
            credentials' own).
        access_token: A token sent as it is, or ``None``.
        credentials: Google credentials the SDK refreshes, without a token.
    """

    name = "vertex"

    def __init__(
        self,
        *,
        region: str | None,
        project: str | None,
        access_token: str | None,
        credentials: Any = None,
    ) -> None:
        self.region = region
        self.project = project
        self.secret = access_token
        self._credentials = credentials
        self._served = served_as(vertex_base)

    def client(self, base_url: str | None, max_retries: int) -> MessagesCaller:
        """An ``AsyncAnthropicVertex`` sending to ``base_url`` (``None``: the region's
        ``aiplatform`` endpoint)."""
        from anthropic import AsyncAnthropicVertex

        # Only what is set: the SDK reads its own variables for the rest.
        given: dict[str, Any] = {"region": self.region, "project_id": self.project}
        options = {key: value for key, value in given.items() if value}
        return SdkMessages(
            AsyncAnthropicVertex(
                **options,
                access_token=self.secret,
                credentials=self._credentials,
                base_url=base_url,
                max_retries=max_retries,
            )
        )

    def served(self, asked: str, served: str | None) -> str | None:
        """``asked`` when Vertex AI answered with the Anthropic id it stands for."""
        return self._served(asked, served)


def _default_credentials() -> Any:
    """Google application default credentials (refreshed by the SDK on first use)."""
    require("google.auth", "vertex", package="google-auth", why="application default credentials")
    google_auth: Any = importlib.import_module("google.auth")
    try:
        credentials, _project = google_auth.default(scopes=[_SCOPE])
    except google_auth.exceptions.DefaultCredentialsError:
        raise PlatformUnavailable(_NO_CREDENTIALS) from None
    return credentials


def make_vertex_provider(
    spec: ProviderSpec, *, base_url: str | None, max_retries: int
) -> AnthropicProvider:
    """The Vertex AI provider of ``spec`` (a judge's, with its ``region`` and ``project``).

    Raises:
        PlatformUnavailable: No region or project, no credentials, or (without an
            access token) no google-auth.
    """
    check_settings(spec, base_url)
    token = os.environ.get(ACCESS_TOKEN_ENV) or None
    platform = VertexPlatform(
        region=getattr(spec, "region", None),
        project=getattr(spec, "project", None),
        access_token=token,
        credentials=None if token else _default_credentials(),
    )
    return AnthropicProvider(base_url=base_url, max_retries=max_retries, platform=platform)
