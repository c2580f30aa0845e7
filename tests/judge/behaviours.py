"""What the local judge server answers to one call, and how each API spells it.

A ``Behaviour`` says what happens (a forced tool call, a 429, a refusal, a slow or
malformed answer) independently of the API; ``render_message``, ``render_chat`` and
``render_batch_result`` write it the way the Anthropic Messages API, an
OpenAI-compatible chat completions endpoint and a Message Batches result line do.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Kind = Literal[
    "tool_use", "text", "refusal", "max_tokens", "error", "malformed", "canceled", "expired"
]

ECHO = "<echo the requested model>"
"""Default ``model`` of a reply: the model the request asked for, as the real API does."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Behaviour:
    """One scripted answer.

    Attributes:
        kind: What the answer is.
        tool_input: Input of the tool call (``tool_use``; a partial one for ``max_tokens``).
        text: Text content of the answer.
        model: Served model to report; ``ECHO`` repeats the request's, ``None`` omits it.
        status: HTTP status (``error``).
        headers: Extra response headers (``retry-after``, ``retry-after-ms``, ...).
        delay: Seconds to wait before answering (timeouts, latency).
        usage: Token counts to report, over the defaults.
    """

    kind: Kind
    tool_input: dict[str, Any] | None = None
    text: str = ""
    model: str | None = ECHO
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)


def tool_use(tool_input: dict[str, Any], **options: Any) -> Behaviour:
    """Answers through the forced tool with ``tool_input``."""
    return Behaviour("tool_use", tool_input=tool_input, **options)


def text_only(text: str = "I think it passes.", **options: Any) -> Behaviour:
    """Answers in text without calling the tool (``end_turn``)."""
    return Behaviour("text", text=text, **options)


def refusal(text: str = "I can't help with that.") -> Behaviour:
    """Stops with ``stop_reason: refusal``."""
    return Behaviour("refusal", text=text)


def max_tokens(partial_input: dict[str, Any] | None = None) -> Behaviour:
    """Stops at ``max_tokens``: a truncated tool call when given its partial input, else none."""
    return Behaviour("max_tokens", tool_input=partial_input, text="" if partial_input else "The ")


def no_model(tool_input: dict[str, Any]) -> Behaviour:
    """A successful tool call whose response has no ``model`` field."""
    return Behaviour("tool_use", tool_input=tool_input, model=None)


def http_error(status: int, message: str = "", **options: Any) -> Behaviour:
    """An error response with the API's error body."""
    return Behaviour("error", status=status, text=message or f"scripted HTTP {status}", **options)


def rate_limited(retry_after: float | None = 1, retry_after_ms: float | None = None) -> Behaviour:
    """A 429 with ``retry-after`` (seconds) and/or ``retry-after-ms`` headers."""
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = f"{retry_after:g}"
    if retry_after_ms is not None:
        headers["retry-after-ms"] = f"{retry_after_ms:g}"
    return http_error(429, "rate limited", headers=headers)


def server_error(**options: Any) -> Behaviour:
    """A 500 ``api_error``."""
    return http_error(500, "internal error", **options)


def overloaded(**options: Any) -> Behaviour:
    """A 529 ``overloaded_error``."""
    return http_error(529, "overloaded", **options)


def malformed() -> Behaviour:
    """A 200 whose JSON body is cut off."""
    return Behaviour("malformed")


def errored(message: str = "scripted batch error") -> Behaviour:
    """A failed call; in a batch, an ``errored`` result line."""
    return http_error(400, message)


def canceled() -> Behaviour:
    """A batch item that was canceled (batch results only)."""
    return Behaviour("canceled")


def expired() -> Behaviour:
    """A batch item that expired (batch results only)."""
    return Behaviour("expired")


def delayed(seconds: float, then: Behaviour) -> Behaviour:
    """``then``, after waiting ``seconds``."""
    return replace(then, delay=then.delay + seconds)


Rendered = tuple[int, dict[str, str], bytes]


def _json(status: int, body: Any, headers: dict[str, str]) -> Rendered:
    return status, {"content-type": "application/json", **headers}, json.dumps(body).encode()


def _forced_tool(request: dict[str, Any]) -> str:
    choice = request.get("tool_choice") or {}
    if isinstance(choice.get("function"), dict):
        return str(choice["function"].get("name", "tool"))
    return str(choice.get("name", "tool"))


def _model(behaviour: Behaviour, request: dict[str, Any]) -> str | None:
    return str(request.get("model", "")) if behaviour.model == ECHO else behaviour.model


def error_body(behaviour: Behaviour) -> dict[str, Any]:
    """The API's error object for an ``error`` behaviour."""
    error_type = _ERROR_TYPES.get(behaviour.status, "api_error")
    return {
        "type": "error",
        "error": {"type": error_type, "message": behaviour.text},
        "request_id": "req_scripted",
    }


def message_body(behaviour: Behaviour, request: dict[str, Any], message_id: str) -> dict[str, Any]:
    """A Messages API ``Message`` for a non-error behaviour."""
    content: list[dict[str, Any]] = []
    if behaviour.text:
        content.append({"type": "text", "text": behaviour.text})
    if behaviour.tool_input is not None:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{message_id}",
                "name": _forced_tool(request),
                "input": behaviour.tool_input,
            }
        )
    stop_reason = {"tool_use": "tool_use", "text": "end_turn"}.get(behaviour.kind, behaviour.kind)
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        **behaviour.usage,
    }
    body: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }
    model = _model(behaviour, request)
    if model is not None:
        body["model"] = model
    return body


def render_message(behaviour: Behaviour, request: dict[str, Any], message_id: str) -> Rendered:
    """A ``POST /v1/messages`` response."""
    if behaviour.kind == "error":
        return _json(behaviour.status, error_body(behaviour), behaviour.headers)
    if behaviour.kind == "malformed":
        return 200, {"content-type": "application/json"}, b'{"id": "msg_cut", "content": [{"ty'
    return _json(200, message_body(behaviour, request, message_id), behaviour.headers)


def render_batch_result(behaviour: Behaviour, custom_id: str, params: dict[str, Any]) -> bytes:
    """One JSONL line of ``GET /v1/messages/batches/{id}/results``."""
    result: dict[str, Any]
    if behaviour.kind in ("canceled", "expired"):
        result = {"type": behaviour.kind}
    elif behaviour.kind in ("error", "malformed"):
        result = {"type": "errored", "error": error_body(behaviour)}
    else:
        message = message_body(behaviour, params, f"msg_{custom_id}")
        result = {"type": "succeeded", "message": message}
    return json.dumps({"custom_id": custom_id, "result": result}).encode() + b"\n"


def render_chat(behaviour: Behaviour, request: dict[str, Any], completion_id: str) -> Rendered:
    """A ``POST /v1/chat/completions`` response of an OpenAI-compatible server."""
    if behaviour.kind == "error":
        error = {"message": behaviour.text, "type": "server_error", "code": None}
        return _json(behaviour.status, {"error": error}, behaviour.headers)
    if behaviour.kind == "malformed":
        return 200, {"content-type": "application/json"}, b'{"id": "chatcmpl-cut", "choi'
    message: dict[str, Any] = {"role": "assistant", "content": behaviour.text or None}
    if behaviour.tool_input is not None:
        arguments = json.dumps(behaviour.tool_input)
        if behaviour.kind == "max_tokens":
            arguments = arguments[: max(1, len(arguments) // 2)]
        message["tool_calls"] = [
            {
                "id": f"call_{completion_id}",
                "type": "function",
                "function": {"name": _forced_tool(request), "arguments": arguments},
            }
        ]
    finish_reason = {
        "tool_use": "tool_calls",
        "text": "stop",
        "refusal": "content_filter",
        "max_tokens": "length",
    }.get(behaviour.kind, "stop")
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "total_tokens": 120,
            **behaviour.usage,
        },
    }
    model = _model(behaviour, request)
    if model is not None:
        body["model"] = model
    return _json(200, body, behaviour.headers)
