"""What the Anthropic provider sends and how it reads what comes back.

Kept apart from the provider so the request shape, the reply mapping and the error
mapping can be read (and tested) without a client.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from verifier.llm.providers._errors import one_line, status_error
from verifier.llm.providers._messages_http import (
    MessagesConnectionError,
    MessagesStatusError,
    MessagesTimeout,
)
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, Usage

if TYPE_CHECKING:
    from anthropic.types.shared.error_response import ErrorResponse

# Keys of ``ModelRequest.sampling`` that ``messages.create`` (SDK 2.x) takes as they are.
# It has no temperature, top_p, top_k or seed: a request carrying one is refused rather
# than sent without it, so a triple never claims a parameter that was not sent.
SAMPLING_PARAMS = frozenset(
    {
        "max_tokens",
        "stop_sequences",
        "thinking",
        "output_config",
        "metadata",
        "service_tier",
        "speed",
        "inference_geo",
    }
)

# Batch ``errored`` results whose error type says trying again may work.
_RETRYABLE_ERROR_TYPES = frozenset(
    {"api_error", "overloaded_error", "rate_limit_error", "timeout_error"}
)


def message_params(request: ModelRequest) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request``.

    ``sampling`` holds parameters under the API's names, exactly as sent (see
    ``verifier.llm.sampling``); they go through unchanged.

    Raises:
        ProviderError: Not retryable, when ``sampling`` has a key the API does not
            take, or no ``max_tokens``.
    """
    sampling = dict(request.sampling)
    unknown = sorted(set(sampling) - SAMPLING_PARAMS)
    if unknown:
        raise ProviderError(
            f"anthropic: the Messages API takes no {', '.join(unknown)} "
            "(remove it from the judge's sampling)",
            retryable=False,
        )
    if "max_tokens" not in sampling:
        raise ProviderError("anthropic: sampling has no max_tokens", retryable=False)
    params: dict[str, Any] = {"model": request.model, **sampling}
    if request.system:
        params["system"] = [_system_block(block.text, block.cache) for block in request.system]
    params["messages"] = [{"role": "user", "content": request.user}]
    tool = request.tool
    if tool is not None:
        params["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
        ]
        params["tool_choice"] = {"type": "tool", "name": tool.name}
    return params


def _system_block(text: str, cache: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if cache:
        block["cache_control"] = {"type": "ephemeral"}
    return block


def reply_from_message(
    message: object, *, tool_name: str | None, latency_ms: float = 0.0
) -> ModelReply:
    """Maps a Message (the API's JSON object, decoded) to a ``ModelReply``.

    ``tool_input`` is the input of the first ``tool_use`` block named ``tool_name``
    (any name when ``None``); a block whose input is not an object counts as none.
    ``served_model`` is ``None`` when the response named no model. ``raw`` is the
    Message as it came. A body that is not an object is a retryable error: it was
    damaged on the way, not refused.

    Raises:
        ProviderError: ``message`` is not a JSON object.
    """
    if not isinstance(message, dict):
        raise ProviderError(
            f"anthropic: the response body is {type(message).__name__}, not a Message object",
            retryable=True,
        )
    tool_input: dict[str, Any] | None = None
    texts: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif (
            kind == "tool_use"
            and tool_input is None
            and (tool_name is None or block.get("name") == tool_name)
            and isinstance(block.get("input"), dict)
        ):
            tool_input = dict(block["input"])
    usage = message.get("usage")
    served_model = message.get("model")
    stop_reason = message.get("stop_reason")
    response_id = message.get("id")
    return ModelReply(
        served_model=str(served_model) if served_model else None,
        stop_reason=stop_reason if isinstance(stop_reason, str) else None,
        tool_input=tool_input,
        text="".join(texts),
        usage=Usage(
            input_tokens=_tokens(usage, "input_tokens"),
            output_tokens=_tokens(usage, "output_tokens"),
            cache_read_input_tokens=_tokens(usage, "cache_read_input_tokens"),
            cache_creation_input_tokens=_tokens(usage, "cache_creation_input_tokens"),
        ),
        response_id=str(response_id) if response_id else None,
        latency_ms=latency_ms,
        raw=message,
    )


def _tokens(usage: object, name: str) -> int:
    """A token count of ``usage``; 0 when the response left it out, null or not a number."""
    value = usage.get(name) if isinstance(usage, dict) else None
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def error_from_exception(
    exc: Exception, *, timeout: float, secret: str | None, provider: str = "anthropic"
) -> ProviderError:
    """Maps what a call raised to a ``ProviderError`` (one line, key masked).

    Statuses 408, 409, 429 and 5xx (529 overloaded included), timeouts and
    connection errors are retryable (the client has already retried them
    ``max_retries`` times); other statuses are not, unless ``x-should-retry`` says
    so. A 200 whose body is not JSON is retryable too: the body was damaged on the
    way, not refused. The SDK's exceptions (batches, the platform clients) map the
    same way; ``provider`` begins the message (``bedrock: timed out after 30s``).
    """
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, MessagesTimeout):
        return ProviderError(f"{provider}: timed out after {timeout:g}s", retryable=True)
    if isinstance(exc, MessagesConnectionError):
        return _connection_error(exc, secret, provider)
    if isinstance(exc, MessagesStatusError):
        return _status_error(exc, exc.status, exc.headers, secret, provider)
    if isinstance(exc, json.JSONDecodeError):
        return ProviderError(
            one_line(f"{provider}: malformed JSON in the response body: {exc}", secret=secret),
            retryable=True,
        )
    sdk = sys.modules.get("anthropic")  # an SDK exception means the SDK is imported already
    if sdk is not None:
        if isinstance(exc, sdk.APITimeoutError):
            return ProviderError(f"{provider}: timed out after {timeout:g}s", retryable=True)
        if isinstance(exc, sdk.APIConnectionError):
            return _connection_error(exc, secret, provider)
        if isinstance(exc, sdk.APIStatusError):
            headers = dict(exc.response.headers.items())
            return _status_error(exc, exc.status_code, headers, secret, provider)
    return ProviderError(
        one_line(f"{provider}: {type(exc).__name__}: {exc}", secret=secret), retryable=False
    )


def _connection_error(exc: Exception, secret: str | None, provider: str) -> ProviderError:
    return ProviderError(
        one_line(f"{provider}: connection error: {exc.__cause__ or exc}", secret=secret),
        retryable=True,
    )


def _status_error(
    exc: Any, status: int, headers: Mapping[str, str], secret: str | None, provider: str
) -> ProviderError:
    """``exc`` has the SDK's ``type``, ``api_message``, ``message`` and ``request_id``."""
    detail = f"{exc.type or 'error'}: {exc.api_message or exc.message}"
    if exc.request_id:
        detail += f" (request {exc.request_id})"
    return status_error(provider, status, detail, headers, secret=secret)


def error_from_batch_result(error: ErrorResponse | None, result_type: str) -> ProviderError:
    """A ``ProviderError`` for a batch item that did not succeed."""
    if result_type != "errored" or error is None:
        return ProviderError(f"anthropic: batch request {result_type}", retryable=True)
    kind = error.error.type
    return ProviderError(
        one_line(f"anthropic: batch request errored: {kind}: {error.error.message}"),
        retryable=kind in _RETRYABLE_ERROR_TYPES,
    )
