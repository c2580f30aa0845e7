"""Secrets kept out of log lines: credential-looking keys and values masked.

``redact_secrets`` is the structlog processor every log line of ``verifier.logs``
passes; the other functions serve it and any caller that shows text a key could be in.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from structlog.typing import EventDict, WrappedLogger

__all__ = ["REDACTED", "is_secret_key", "redact", "redact_secrets", "redact_text"]

REDACTED = "[REDACTED]"

# Key names are split into words (snake, kebab and camel case) and matched word by
# word, so ``access_token`` and ``OPENAI_API_KEY`` are secrets but the ubiquitous
# ``max_tokens`` / ``input_tokens`` usage counts are not.
_SECRET_WORDS = frozenset(
    {
        "token",
        "secret",
        "password",
        "passwd",
        "authorization",
        "apikey",
        "auth",
        "credential",
        "credentials",
        "cookie",
    }
)
_SECRET_PAIRS = frozenset({("api", "key"), ("private", "key"), ("access", "key")})
_CAMEL_BOUNDARY = re.compile(r"([a-z0-9])([A-Z])")
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")

# Shapes of credentials inside free text. Anthropic keys are matched at any length
# (their prefix is unambiguous); other ``sk-`` strings from 20 characters on, which
# covers OpenAI's ``sk-...``, ``sk-proj-...`` and ``sk-svcacct-...``.
_KEY_SHAPES = re.compile(r"sk-ant-[A-Za-z0-9_\-]+|sk-[A-Za-z0-9_\-]{20,}")
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=\-]+")
# ``api_key=...`` / ``"token": "..."`` / ``x-api-key: ...`` written inside a string,
# e.g. a URL query or a dumped header block in an exception message.
_ASSIGNED = re.compile(
    r"(?i)(?<![A-Za-z0-9])((?:x-)?api[_-]?key|token|secret|password|passwd|authorization)"
    r"""(["']?\s*[:=]\s*["']?)([^\s"',;&}]+)"""
)

# Nesting deeper than this is not worth walking; it is replaced, never passed through.
_MAX_DEPTH = 12

# structlog's own bookkeeping keys (ProcessorFormatter) must survive untouched.
_PASSTHROUGH_KEYS = frozenset({"_record", "_from_structlog"})


def is_secret_key(key: object) -> bool:
    """Returns whether a mapping key names a credential (``api_key``, ``Authorization``...)."""
    name = _CAMEL_BOUNDARY.sub(r"\1_\2", str(key)).lower()
    words = [w for w in _WORD_SPLIT.split(name) if w]
    if any(w in _SECRET_WORDS for w in words):
        return True
    return any(pair in _SECRET_PAIRS for pair in itertools.pairwise(words))


def redact_text(text: str) -> str:
    """Returns ``text`` with API keys, bearer tokens and assigned secrets masked."""
    text = _KEY_SHAPES.sub(REDACTED, text)
    text = _BEARER.sub(rf"\1 {REDACTED}", text)
    return _ASSIGNED.sub(rf"\1\2{REDACTED}", text)


def redact(value: Any, _depth: int = 0) -> Any:
    """Returns a copy of ``value`` safe to log.

    Values under secret-looking keys are masked whole; strings anywhere, including
    nested in dicts, lists and tuples, have credential shapes masked; any other
    object is logged as its masked ``repr``, since its ``repr`` could hold a key.
    """
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return redact_text(value)
    if _depth >= _MAX_DEPTH:
        return "[...]"
    if isinstance(value, Mapping):
        return {
            k: REDACTED if is_secret_key(k) else redact(v, _depth + 1) for k, v in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return redact_text(value.decode("utf-8", "replace"))
    return redact_text(repr(value))


def redact_secrets(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """structlog processor: masks secrets in every key and value of an event.

    Runs after exceptions are formatted to text, so tracebacks are masked too.
    """
    return {key: _redact_entry(key, value) for key, value in event_dict.items()}


def _redact_entry(key: str, value: Any) -> Any:
    if key in _PASSTHROUGH_KEYS:
        return value
    return REDACTED if is_secret_key(key) else redact(value)
