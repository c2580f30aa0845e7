"""A judge provider for Azure OpenAI: chat completions of a deployment, through the
official ``openai`` SDK's ``AsyncAzureOpenAI`` client (the ``azure`` extra).

The request body and the reading of the answer are the OpenAI provider's
(``openai_compat.chat_body`` and ``reply_from_completion``); the SDK adds what is
Azure's own: the path ``/openai/deployments/{deployment}/chat/completions``, the
``api-version`` query and the ``api-key`` (or Entra ID bearer token) header. A judge's
``model`` is the deployment's name and its ``base_url`` the resource endpoint; the
response names the model that served (``gpt-4o-2024-08-06``), which the triple
records (ADR 0076).

The SDK retries 408/409/429/5xx, timeouts and failed connections ``max_retries``
times, honouring ``retry-after``; what still fails reaches the scheduler as a
``ProviderError``. The credential is read when the first call is made and never
appears in an error.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, Final

from verifier.llm.providers._errors import one_line, status_error
from verifier.llm.providers.openai_compat import chat_body, reply_from_completion
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

if TYPE_CHECKING:
    from openai import AsyncAzureOpenAI

NAME: Final = "azure-openai"
API_KEY_ENV: Final = "AZURE_OPENAI_API_KEY"
AD_TOKEN_ENV: Final = "AZURE_OPENAI_AD_TOKEN"
ENDPOINT_ENV: Final = "AZURE_OPENAI_ENDPOINT"
"""The resource endpoint when the judge names no ``base_url``."""
API_VERSION_ENV: Final = "OPENAI_API_VERSION"
"""The SDK's own variable for the ``api-version`` every call sends."""
DEFAULT_API_VERSION: Final = "2024-10-21"
"""The ``api-version`` sent when ``OPENAI_API_VERSION`` is not set: the generally
available data-plane version with function calling and ``seed``."""


def _import_sdk() -> Any:
    try:
        import openai
    except ImportError:
        raise ProviderError(
            f"{NAME}: the Azure OpenAI provider needs the openai SDK: "
            "pip install 'verifier-llm[azure]'",
            retryable=False,
        ) from None
    return openai


class AzureOpenAIProvider:
    """Judge calls to an Azure OpenAI deployment's chat completions.

    Args:
        base_url: The resource endpoint (``https://NAME.openai.azure.com``); a
            request's own ``base_url`` wins over it, and with neither the
            provider reads ``AZURE_OPENAI_ENDPOINT``.
        max_retries: Retries the SDK makes before an error reaches the caller.
    """

    name = NAME

    def __init__(self, *, base_url: str | None = None, max_retries: int = 2) -> None:
        self.base_url = base_url
        self.max_retries = max_retries
        self._clients: dict[str, AsyncAzureOpenAI] = {}
        self._secret: str | None = None

    def _credential(self) -> dict[str, str]:
        key = os.environ.get(API_KEY_ENV, "")
        token = os.environ.get(AD_TOKEN_ENV, "")
        if not key and not token:
            raise ProviderError(f"{NAME}: set {API_KEY_ENV} or {AD_TOKEN_ENV}", retryable=False)
        self._secret = key or token
        return {"api_key": key} if key else {"azure_ad_token": token}

    def _client(self, base_url: str | None) -> AsyncAzureOpenAI:
        endpoint = base_url or self.base_url or os.environ.get(ENDPOINT_ENV)
        if not endpoint:
            raise ProviderError(
                f"{NAME}: no endpoint; set base_url (or {ENDPOINT_ENV}) to the resource's",
                retryable=False,
            )
        client = self._clients.get(endpoint)
        if client is None:
            openai = _import_sdk()
            client = openai.AsyncAzureOpenAI(
                azure_endpoint=endpoint,
                api_version=os.environ.get(API_VERSION_ENV) or DEFAULT_API_VERSION,
                max_retries=self.max_retries,
                **self._credential(),
            )
            self._clients[endpoint] = client
        return client

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        """Sends ``request`` to the deployment ``request.model`` names and maps the
        completion to a ``ModelReply`` whose ``served_model`` is the model the
        response names.

        Raises:
            ProviderError: The call failed, after the SDK's own retries.
        """
        if request.stored_prompt is not None:
            raise ProviderError(
                f"{NAME}: a stored prompt is called through OpenAI's own API; use provider: openai",
                retryable=False,
            )
        body = chat_body(request)
        client = self._client(request.base_url)
        started = time.perf_counter()
        try:
            completion = await client.chat.completions.create(**body, timeout=timeout)
        except Exception as exc:
            # ``from None``: the exception's chain holds the request, and its headers the key.
            raise self._error(exc, timeout) from None
        latency_ms = (time.perf_counter() - started) * 1000
        tool_name = request.tool.name if request.tool is not None else ""
        data = completion.to_dict(mode="json")
        return reply_from_completion(data, tool_name=tool_name, latency_ms=latency_ms)

    def _error(self, exc: Exception, timeout: float) -> ProviderError:
        openai = _import_sdk()
        if isinstance(exc, openai.APITimeoutError):
            return ProviderError(f"{NAME}: timed out after {timeout:g}s", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            body = exc.body
            detail = body.get("message") if isinstance(body, dict) else None
            headers = dict(exc.response.headers.items())
            return status_error(
                NAME, exc.status_code, str(detail or exc.message), headers, secret=self._secret
            )
        retryable = isinstance(exc, openai.APIConnectionError)
        message = one_line(f"{NAME}: {type(exc).__name__}: {exc}", secret=self._secret)
        return ProviderError(message, retryable=retryable)

    async def aclose(self) -> None:
        """Closes the HTTP clients."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()
