"""A small client of the Anthropic Messages API: what ``AnthropicProvider.complete`` sends.

Importing the Anthropic SDK costs more than a second of CPU (its types are most of it),
four times what a judge run needs to reach its first call. This client sends the call
over the SDK's own HTTP library (``httpx2``) and keeps the SDK 2.x's rules, so a run
sees what it saw through the SDK (ADR 0049):

- the key as ``Authorization: Bearer``, the ``anthropic-version`` the SDK pins, the base
  URL from the argument, else ``ANTHROPIC_BASE_URL``, else the public API;
- ``timeout`` bounds each attempt; ``max_retries`` more attempts follow a timeout, a
  connection error, or a status 408, 409, 429 or >= 500, unless the server's
  ``x-should-retry`` says otherwise;
- between attempts it waits what ``retry-after-ms`` or ``retry-after`` asks, else
  ``min(0.5 * 2**n, 8)`` seconds less up to a quarter of jitter;
- redirects are followed.

``tests/judge/test_messages_parity.py`` drives this client and the real SDK through the
same scripted failures and checks they agree.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Mapping
from typing import Any

import httpx2
import orjson

from verifier.llm.providers._errors import is_retryable_status, retry_after_seconds

API_VERSION = "2026-10-21"
"""The ``anthropic-version`` the Anthropic SDK 2.14 sends."""

DEFAULT_BASE_URL = "https://api.anthropic.com"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"

_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
_DEFAULT_TIMEOUT = httpx2.Timeout(600.0, connect=5.0)
_INITIAL_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_MAX_WAIT = 4_294_967.0  # the SDK's cap on a server-asked wait (a platform sleep limit)


class MessagesTimeout(Exception):
    """An attempt took longer than its timeout, and no retry was left."""


class MessagesConnectionError(Exception):
    """The request could not be sent or its answer read; ``__cause__`` says why."""


class MessagesStatusError(Exception):
    """The API answered with an error status, after the retries it allowed.

    Attributes:
        status: The HTTP status.
        type: The error's ``type`` from the body (``rate_limit_error``...), if any.
        api_message: The error's ``message`` from the body, if any.
        message: The whole answer on one line, as the SDK words it.
        request_id: The ``request-id`` header, if any.
        headers: The response headers.
    """

    def __init__(self, response: httpx2.Response) -> None:
        text = response.text.strip()
        body: object = text
        try:
            body = json.loads(text)
            message = f"Error code: {response.status_code} - {body}"
        except ValueError:
            message = text or f"Error code: {response.status_code}"
        super().__init__(message)
        error = body.get("error") if isinstance(body, dict) else None
        self.status = response.status_code
        self.type = _text(error, "type")
        self.api_message = _text(error, "message")
        self.message = message
        self.request_id = response.headers.get("request-id")
        self.headers: Mapping[str, str] = response.headers


def _text(error: object, key: str) -> str | None:
    value = error.get(key) if isinstance(error, dict) else None
    return value if isinstance(value, str) else None


def should_retry(response: httpx2.Response) -> bool:
    """Whether the SDK would try a failed status again (before counting retries)."""
    override = response.headers.get("x-should-retry")
    if override == "true":
        return True
    if override == "false":
        return False
    return is_retryable_status(response.status_code)


def retry_wait(retries_taken: int, headers: Mapping[str, str] | None) -> float:
    """Seconds to wait before the next attempt, as the SDK computes them."""
    asked = retry_after_seconds(headers) if headers is not None else None
    if asked is not None and asked > 0:
        return min(asked, _MAX_WAIT)
    backoff = min(_INITIAL_RETRY_DELAY * 2.0 ** min(retries_taken, 1000), _MAX_RETRY_DELAY)
    return max(backoff * (1 - 0.25 * random.random()), 0.0)


class MessagesClient:
    """Creates Messages over one pooled HTTP connection set.

    Args:
        api_key: The key, sent as a bearer token (never logged or put in an error).
        base_url: The API's address; ``None`` reads ``ANTHROPIC_BASE_URL``, then the
            public API.
        max_retries: Attempts made after the first one fails retryably.
    """

    def __init__(self, *, api_key: str, base_url: str | None = None, max_retries: int = 2) -> None:
        self.max_retries = max_retries
        self._http = httpx2.AsyncClient(
            base_url=base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL,
            headers={
                "Authorization": f"Bearer {api_key}",
                "anthropic-version": API_VERSION,
                "Accept": "application/json",
                "Content-Type": "application/json",
            },
            limits=_LIMITS,
            timeout=_DEFAULT_TIMEOUT,
            follow_redirects=True,  # as the SDK's client does
        )

    async def create(self, params: Mapping[str, Any], *, timeout: float) -> Any:
        """POSTs ``params`` to ``/v1/messages`` and returns the decoded JSON answer.

        Raises:
            MessagesTimeout: The last attempt timed out.
            MessagesConnectionError: The last attempt could not connect or read.
            MessagesStatusError: The last attempt got an error status.
            json.JSONDecodeError: A success whose body is not JSON (not retried, as
                the SDK does not).
        """
        body = orjson.dumps(params)
        for retries_taken in range(self.max_retries + 1):
            last = retries_taken == self.max_retries
            headers = {"x-stainless-retry-count": str(retries_taken)}
            try:
                response = await self._http.post(
                    "/v1/messages", content=body, headers=headers, timeout=timeout
                )
            except httpx2.TimeoutException as exc:
                if last:
                    raise MessagesTimeout(f"timed out after {timeout:g}s") from exc
                await asyncio.sleep(retry_wait(retries_taken, None))
                continue
            except Exception as exc:  # the SDK retries any failure to send as a connection error
                if last:
                    raise MessagesConnectionError(str(exc)) from exc
                await asyncio.sleep(retry_wait(retries_taken, None))
                continue
            if response.is_success:
                return json.loads(response.text)
            if not last and should_retry(response):
                await asyncio.sleep(retry_wait(retries_taken, response.headers))
                continue
            raise MessagesStatusError(response)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def aclose(self) -> None:
        """Closes the pooled connections."""
        await self._http.aclose()
