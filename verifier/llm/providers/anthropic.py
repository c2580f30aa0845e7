"""The Anthropic judge provider: one forced-tool Messages call per request, or a batch.

A call goes through ``MessagesClient`` (``_messages_http.py``), which keeps the SDK
2.x's rules without importing it; a batch goes through the SDK, imported when the first
batch is made (ADR 0049). Retries of 408/409/429/5xx/529, timeouts and connection
errors happen inside the client (``max_retries``, honouring ``retry-after-ms`` /
``retry-after``); what is still failing after them reaches the caller as a
``ProviderError`` whose ``retryable`` and ``retry_after`` tell the scheduler whether
and when to try again.

Like the SDK, the client sleeps as long as ``retry-after`` asks, with no upper bound,
and ``timeout`` bounds each attempt, not those sleeps. A caller that must bound a
call's wall time should use ``max_retries=0`` and retry itself from
``ProviderError.retry_after``.

A cloud platform (Bedrock, Vertex AI, Foundry) speaks the same Messages API through
the SDK's own client for it: the provider is then made with a ``Platform``, which gives
the client and says which served model counts as the one asked for; the request, the
reply and the errors stay this module's. Message Batches are the direct API's only.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from verifier.llm.providers._anthropic_wire import (
    error_from_batch_result,
    error_from_exception,
    message_params,
    reply_from_message,
)
from verifier.llm.providers._messages_http import MessagesClient
from verifier.llm.types import ModelReply, ModelRequest, ProviderError

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

API_KEY_ENV = "ANTHROPIC_API_KEY"

# Timeout of batch management calls (create, retrieve, results), which are not judge calls.
_BATCH_TIMEOUT = 120.0


class MessagesCaller(Protocol):
    """Creates one Message: ``MessagesClient``, or a platform's SDK client behind it."""

    async def create(self, params: Mapping[str, Any], *, timeout: float) -> Any: ...

    async def aclose(self) -> None: ...


class Platform(Protocol):
    """A cloud platform the Messages API is reached through instead of Anthropic's own.

    Attributes:
        name: The provider's name (``bedrock``), which begins its errors.
        secret: A credential the platform's errors could echo, masked in them.
    """

    name: str
    secret: str | None

    def client(self, base_url: str | None, max_retries: int) -> MessagesCaller:
        """A client sending to ``base_url`` (``None``: the platform's own endpoint)."""
        ...

    def served(self, asked: str, served: str | None) -> str | None:
        """The model to record as served: ``asked`` when ``served`` is the model it
        stands for on this platform, else ``served``."""
        ...


class AnthropicProvider:
    """Judge calls through ``MessagesClient``, batches through ``anthropic.AsyncAnthropic``.

    The key is read from ``ANTHROPIC_API_KEY`` when the first call is made, so a
    missing key becomes a ``ProviderError`` of that call, not a crash at start-up.

    Args:
        base_url: The API's address; a request's own ``base_url`` wins over it, and
            with neither the client reads ``ANTHROPIC_BASE_URL``.
        max_retries: Retries made before an error reaches the caller.
        platform: The cloud platform calls go through (``None``: Anthropic's API).
    """

    name = "anthropic"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        max_retries: int = 2,
        platform: Platform | None = None,
    ) -> None:
        self.base_url = base_url
        self.max_retries = max_retries
        self.platform = platform
        if platform is not None:
            self.name = platform.name
        self._messages: dict[str | None, MessagesCaller] = {}
        self._clients: dict[str | None, AsyncAnthropic] = {}
        self._key: str | None = None

    def _api_key(self) -> str:
        key = os.environ.get(API_KEY_ENV, "")
        if not key:
            raise ProviderError(f"anthropic: {API_KEY_ENV} is not set", retryable=False)
        self._key = key
        return key

    def _messages_client(self, base_url: str | None) -> MessagesCaller:
        url = base_url or self.base_url
        client = self._messages.get(url)
        if client is None:
            client = (
                self.platform.client(url, self.max_retries)
                if self.platform is not None
                else MessagesClient(
                    api_key=self._api_key(), base_url=url, max_retries=self.max_retries
                )
            )
            self._messages[url] = client
        return client

    def _client(self, base_url: str | None = None) -> AsyncAnthropic:
        if self.platform is not None:
            raise ProviderError(
                f"{self.name}: Message Batches are not offered through the {self.name} "
                "client of the anthropic SDK",
                retryable=False,
            )
        url = base_url or self.base_url
        client = self._clients.get(url)
        if client is None:
            key = self._api_key()
            # Imported here: the SDK costs a second of CPU, and only batches use it.
            from anthropic import AsyncAnthropic

            client = AsyncAnthropic(api_key=key, base_url=url, max_retries=self.max_retries)
            self._clients[url] = client
        return client

    def _error(self, exc: Exception, timeout: float) -> ProviderError:
        secret = self.platform.secret if self.platform is not None else self._key
        return error_from_exception(exc, timeout=timeout, secret=secret, provider=self.name)

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        """Sends ``request`` and maps the Message it gets to a ``ModelReply``.

        Args:
            request: The rendered request.
            timeout: Seconds allowed for each attempt (the client may make
                ``max_retries`` more, so the call can last longer).

        Raises:
            ProviderError: The call failed, after the client's own retries.
        """
        params = message_params(request)
        client = self._messages_client(request.base_url)
        started = time.perf_counter()
        try:
            message = await client.create(params, timeout=timeout)
        except Exception as exc:
            # ``from None``: the exception's chain holds the request, and its headers the key.
            raise self._error(exc, timeout) from None
        latency_ms = (time.perf_counter() - started) * 1000
        tool_name = request.tool.name if request.tool is not None else None
        reply = reply_from_message(message, tool_name=tool_name, latency_ms=latency_ms)
        if self.platform is None:
            return reply
        served = self.platform.served(request.model, reply.served_model)
        return dataclasses.replace(reply, served_model=served)

    async def submit_batch(self, requests: Sequence[ModelRequest]) -> str:
        """Creates a Message Batch of ``requests`` and returns its id.

        Every request needs a ``custom_id`` unique in the batch; results come back
        under it. All requests go to this provider's ``base_url``.

        Raises:
            ValueError: A request has no ``custom_id`` or shares one.
            ProviderError: The batch could not be created.
        """
        ids = [request.custom_id for request in requests]
        if not all(ids) or len(set(ids)) != len(ids):
            raise ValueError("every request of a batch needs its own non-empty custom_id")
        items: list[Any] = [self.batch_item(request) for request in requests]
        client = self._client()
        try:
            batch = await client.messages.batches.create(requests=items, timeout=_BATCH_TIMEOUT)
        except Exception as exc:
            raise self._error(exc, _BATCH_TIMEOUT) from None
        return batch.id

    def batch_item(self, request: ModelRequest) -> dict[str, Any]:
        """``request`` as one item of a batch's ``requests`` (its size counts toward the
        batch's byte limit)."""
        return {"custom_id": request.custom_id, "params": message_params(request)}

    async def batch_status(self, batch_id: str) -> tuple[str, dict[str, int]]:
        """The batch's ``processing_status`` (``in_progress``, ``canceling``, ``ended``)
        and its request counts (``processing``, ``succeeded``, ``errored``,
        ``canceled``, ``expired``).

        Raises:
            ProviderError: The batch could not be retrieved.
        """
        client = self._client()
        try:
            batch = await client.messages.batches.retrieve(batch_id, timeout=_BATCH_TIMEOUT)
        except Exception as exc:
            raise self._error(exc, _BATCH_TIMEOUT) from None
        return batch.processing_status, batch.request_counts.model_dump()

    async def batch_results(
        self, batch_id: str
    ) -> AsyncIterator[tuple[str, ModelReply | ProviderError]]:
        """Yields ``(custom_id, reply or error)`` for every request of an ended batch.

        Results come in no particular order. An ``errored`` item yields a
        ``ProviderError`` (retryable when its error type is); ``canceled`` and
        ``expired`` items yield retryable ones. Replies have ``latency_ms`` 0 and
        take the first ``tool_use`` block whatever its name.

        Raises:
            ProviderError: The results could not be fetched (the batch has not
                ended, or the call failed).
        """
        client = self._client()
        try:
            lines = await client.messages.batches.results(batch_id, timeout=_BATCH_TIMEOUT)
        except Exception as exc:
            raise self._error(exc, _BATCH_TIMEOUT) from None
        try:
            async for line in lines:
                result = line.result
                if result.type == "succeeded":
                    message = result.message.model_dump(mode="json")
                    yield line.custom_id, reply_from_message(message, tool_name=None)
                elif result.type == "errored":
                    yield line.custom_id, error_from_batch_result(result.error, result.type)
                else:
                    yield line.custom_id, error_from_batch_result(None, result.type)
        except Exception as exc:
            raise self._error(exc, _BATCH_TIMEOUT) from None
        finally:
            await lines.close()

    async def aclose(self) -> None:
        """Closes the HTTP clients."""
        messages, self._messages = list(self._messages.values()), {}
        for messages_client in messages:
            await messages_client.aclose()
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.close()
