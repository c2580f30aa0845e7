"""Turning provider failures into ``ProviderError``: retryability, wait hints, safe messages."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

from verifier.llm.types import ProviderError

_MAX_MESSAGE = 300


def is_retryable_status(status: int) -> bool:
    """408, 409, 429 and every 5xx (529 included), as the Anthropic SDK retries them."""
    return status in (408, 409, 429) or status >= 500


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait the server asked for: ``retry-after-ms`` wins over ``retry-after``.

    ``retry-after`` may be seconds (a float is accepted) or an HTTP date. Returns
    ``None`` when neither header says anything usable.
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        return max(float(lowered["retry-after-ms"]) / 1000, 0.0)
    except (KeyError, ValueError):
        pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(float(email.utils.mktime_tz(parsed)) - time.time(), 0.0)


def should_retry_override(headers: Mapping[str, str]) -> bool | None:
    """The server's explicit ``x-should-retry: true|false``, when it sent one."""
    value = {name.lower(): v for name, v in headers.items()}.get("x-should-retry")
    return {"true": True, "false": False}.get(value or "")


def one_line(text: str, *, secret: str | None = None) -> str:
    """``text`` on one line, shortened, with ``secret`` (an API key) masked."""
    if secret:
        text = text.replace(secret, "***")
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_MESSAGE else flat[: _MAX_MESSAGE - 3] + "..."


def status_error(
    provider: str,
    status: int,
    detail: str,
    headers: Mapping[str, str],
    *,
    secret: str | None,
) -> ProviderError:
    """A ``ProviderError`` for an HTTP error status."""
    override = should_retry_override(headers)
    retryable = is_retryable_status(status) if override is None else override
    return ProviderError(
        one_line(f"{provider}: HTTP {status}: {detail}", secret=secret),
        retryable=retryable,
        retry_after=retry_after_seconds(headers),
        status=status,
    )


def refuse_unsent(sampling: Mapping[str, Any], accepted: frozenset[str], api: str) -> None:
    """Refuses sampling keys the API lacks, so a triple never names a parameter not sent.

    Args:
        sampling: The parameters a request would send.
        accepted: The names the API takes.
        api: The API and its verb, as the message says them (``chat completions take``).

    Raises:
        ProviderError: Not retryable, naming the keys ``api`` lacks.
    """
    unknown = sorted(set(sampling) - accepted)
    if unknown:
        raise ProviderError(
            f"openai: {api} no {', '.join(unknown)} (remove it from the judge's sampling)",
            retryable=False,
        )
