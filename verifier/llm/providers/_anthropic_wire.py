"""What the Anthropic provider sends and how it reads what comes back.

Kept apart from the provider so the request shape, the reply mapping and the error
mapping can be read (and tested) without a client.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from verifier.llm.providers._errors import one_line, status_error
from verifier.llm.types import ModelReply, ModelRequest, ProviderError, Usage

if TYPE_CHECKING:
    from anthropic.types import Message
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
    message: Message, *, tool_name: str | None, latency_ms: float = 0.0
) -> ModelReply:
    """Maps a ``Message`` to a ``ModelReply``.

    ``tool_input`` is the input of the first ``tool_use`` block named ``tool_name``
    (any name when ``None``); a block whose input is not an object counts as none.
    ``served_model`` is ``None`` when the response named no model.
    """
    tool_input: dict[str, Any] | None = None
    texts: list[str] = []
    for block in message.content or []:
        if block.type == "text":
            texts.append(block.text)
        elif (
            block.type == "tool_use"
            and tool_input is None
            and (tool_name is None or block.name == tool_name)
            and isinstance(block.input, dict)
        ):
            tool_input = dict(block.input)
    usage = message.usage
    served_model = getattr(message, "model", None)
    return ModelReply(
        served_model=str(served_model) if served_model else None,
        stop_reason=message.stop_reason,
        tool_input=tool_input,
        text="".join(texts),
        usage=Usage(
            input_tokens=_tokens(usage, "input_tokens"),
            output_tokens=_tokens(usage, "output_tokens"),
            cache_read_input_tokens=_tokens(usage, "cache_read_input_tokens"),
            cache_creation_input_tokens=_tokens(usage, "cache_creation_input_tokens"),
        ),
        response_id=message.id or None,
        latency_ms=latency_ms,
        raw=message.model_dump(mode="json"),
    )


def _tokens(usage: object, name: str) -> int:
    """A token count of ``usage``; 0 when the response left it out or null."""
    return int(getattr(usage, name, None) or 0)


def error_from_exception(exc: Exception, *, timeout: float, secret: str | None) -> ProviderError:
    """Maps what ``messages.create`` raised to a ``ProviderError`` (one line, key masked).

    Statuses 408, 409, 429 and 5xx (529 overloaded included), timeouts and
    connection errors are retryable (the SDK has already retried them
    ``max_retries`` times); other statuses are not. A 200 whose body is not JSON
    is retryable too: the body was damaged on the way, not refused.
    """
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderError(f"anthropic: timed out after {timeout:g}s", retryable=True)
    if isinstance(exc, anthropic.APIConnectionError):
        return ProviderError(
            one_line(f"anthropic: connection error: {exc.__cause__ or exc}", secret=secret),
            retryable=True,
        )
    if isinstance(exc, anthropic.APIStatusError):
        detail = f"{exc.type or 'error'}: {exc.api_message or exc.message}"
        if exc.request_id:
            detail += f" (request {exc.request_id})"
        headers = dict(exc.response.headers.items())
        return status_error("anthropic", exc.status_code, detail, headers, secret=secret)
    if isinstance(exc, json.JSONDecodeError):
        return ProviderError(
            one_line(f"anthropic: malformed JSON in the response body: {exc}", secret=secret),
            retryable=True,
        )
    return ProviderError(
        one_line(f"anthropic: {type(exc).__name__}: {exc}", secret=secret), retryable=False
    )


def error_from_batch_result(error: ErrorResponse | None, result_type: str) -> ProviderError:
    """A ``ProviderError`` for a batch item that did not succeed."""
    if result_type != "errored" or error is None:
        return ProviderError(f"anthropic: batch request {result_type}", retryable=True)
    kind = error.error.type
    return ProviderError(
        one_line(f"anthropic: batch request errored: {kind}: {error.error.message}"),
        retryable=kind in _RETRYABLE_ERROR_TYPES,
    )
