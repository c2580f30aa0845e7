"""The prompt, completion, model and token usage of a GenAI span, in whichever form of
the OpenTelemetry GenAI conventions it was recorded (``verifier._internal.otlp_spans``).

- Recent conventions: ``gen_ai.input.messages`` and ``gen_ai.output.messages``, lists
  of ``{"role", "parts": [{"type": "text", "content": ...}]}``.
- Older attributes: ``gen_ai.prompt`` and ``gen_ai.completion`` (a list of ``{"role",
  "content"}``, plain text, or indexed ``gen_ai.prompt.0.content`` attributes).
- Span events: ``gen_ai.user.message`` and ``gen_ai.choice`` (their ``content`` or
  ``message`` attributes, or the JSON of ``gen_ai.event.content``), or
  ``gen_ai.content.prompt`` and ``gen_ai.content.completion`` (holding
  ``gen_ai.prompt`` and ``gen_ai.completion``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["derived_fields"]


def derived_fields(attributes: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """``prompt``, ``completion`` (when the span holds them), ``model`` and ``usage``."""
    out: dict[str, Any] = {
        "model": _first(attributes, "gen_ai.response.model", "gen_ai.request.model"),
        "usage": {
            "input_tokens": _first(
                attributes, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"
            ),
            "output_tokens": _first(
                attributes, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"
            ),
        },
    }
    prompt = _prompt(attributes, events)
    if prompt is not None:
        out["prompt"] = prompt
    completion = _completion(attributes, events)
    if completion is not None:
        out["completion"] = completion
    return out


def _first(attributes: dict[str, Any], *keys: str) -> Any:
    return next((attributes[k] for k in keys if attributes.get(k) is not None), None)


def _prompt(attributes: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    keys = ("gen_ai.input.messages", "gen_ai.prompt")
    names = ("gen_ai.user.message", "gen_ai.content.prompt")
    return _message_text(attributes, keys, _last_user, list(reversed(events)), names)


def _completion(attributes: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    keys = ("gen_ai.output.messages", "gen_ai.completion")
    names = ("gen_ai.choice", "gen_ai.content.completion")
    return _message_text(attributes, keys, lambda found: _text(found[0]), events, names)


def _message_text(
    attributes: dict[str, Any],
    keys: tuple[str, str],
    pick: Callable[[list[Any]], str | None],
    events: list[dict[str, Any]],
    names: tuple[str, str],
) -> str | None:
    """The text the messages attribute ``keys[0]`` holds, else the older ``keys[1]``
    (whole or indexed), else the first of ``events`` named by ``names`` holding one."""
    for messages in (
        attributes.get(keys[0]),
        attributes.get(keys[1]),
        _indexed(attributes, keys[1]),
    ):
        if isinstance(messages, str):
            return messages
        text = pick(messages) if isinstance(messages, list) and messages else None
        if text is not None:
            return text
    for event in events:
        text = _event_text(event, *names, keys[1])
        if text is not None:
            return text
    return None


def _indexed(attributes: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    """Messages recorded as ``PREFIX.0.role``, ``PREFIX.0.content``, ... in order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        head, _, rest = key.removeprefix(prefix + ".").partition(".")
        if key.startswith(prefix + ".") and head.isdigit() and rest:
            found.setdefault(int(head), {})[rest] = value
    return [found[i] for i in sorted(found)] or None


def _last_user(messages: list[Any]) -> str | None:
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return _text(users[-1]) if users else None


def _event_text(event: dict[str, Any], message: str, content: str, key: str) -> str | None:
    attributes = event["attributes"]
    if event["name"] == content:
        value = attributes.get(key)
        if isinstance(value, list):
            chosen = _last_user(value) if message == "gen_ai.user.message" else None
            return chosen if chosen is not None else _text(value[0] if value else None)
        return _text(value)
    if event["name"] != message:
        return None
    body = attributes.get("gen_ai.event.content", attributes)
    if isinstance(body, dict) and isinstance(body.get("message"), dict):
        body = body["message"]
    return _text(body)


def _text(value: Any) -> str | None:
    """The text a message, its content or its parts hold (text parts joined by lines)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("parts", "content", "text"):
            if key in value:
                return _text(value[key])
        return None
    if isinstance(value, list):
        texts = [_text(part) for part in value if _is_text_part(part)]
        kept = [t for t in texts if t is not None]
        return "\n".join(kept) if kept else None
    return None


def _is_text_part(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, dict) and part.get("type", "text") == "text")
