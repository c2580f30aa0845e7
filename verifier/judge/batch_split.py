"""How a run's judge requests are split into Message Batches.

The Message Batches API takes at most 100,000 requests or 256 MB in one batch,
whichever is reached first; a run needing more is split into as many batches as
those limits need, in the order its requests were rendered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from verifier.llm.types import ModelReply, ModelRequest, ProviderError

__all__ = ["MAX_BATCH_BYTES", "MAX_BATCH_REQUESTS", "BatchLimits", "BatchProvider", "split_batches"]

MAX_BATCH_REQUESTS: Final = 100_000
"""Requests one Message Batch may carry (the API's limit)."""

MAX_BATCH_BYTES: Final = 256_000_000
"""Bytes one Message Batch's create request may hold (the API's limit, 256 MB)."""

# ``{"requests":[`` and ``]}`` around the items, which commas separate.
_ENVELOPE: Final = len(b'{"requests":[]}')


@dataclass(frozen=True)
class BatchLimits:
    """How much one batch may carry; the API's limits unless a test sets smaller ones."""

    requests: int = MAX_BATCH_REQUESTS
    bytes: int = MAX_BATCH_BYTES


class BatchProvider(Protocol):
    """A provider that runs Message Batches (``AnthropicProvider``)."""

    def batch_item(self, request: ModelRequest) -> dict[str, Any]: ...

    async def submit_batch(self, requests: Sequence[ModelRequest]) -> str: ...

    async def batch_status(self, batch_id: str) -> tuple[str, dict[str, int]]: ...

    def batch_results(
        self, batch_id: str
    ) -> AsyncIterator[tuple[str, ModelReply | ProviderError]]: ...


def split_batches(
    sized: Sequence[tuple[ModelRequest, int]], limits: BatchLimits
) -> tuple[list[list[ModelRequest]], list[ModelRequest]]:
    """Splits requests, in order, into as few batches as ``limits`` allow.

    Args:
        sized: Each request with the size of its serialized batch item, in bytes.
        limits: The most requests and bytes one batch may carry.

    Returns:
        The batches, and the requests too large for any batch on their own.
    """
    batches: list[list[ModelRequest]] = []
    oversized: list[ModelRequest] = []
    current: list[ModelRequest] = []
    used = _ENVELOPE
    for request, size in sized:
        if _ENVELOPE + size > limits.bytes:
            oversized.append(request)
            continue
        extra = size + (1 if current else 0)
        if current and (len(current) >= limits.requests or used + extra > limits.bytes):
            batches.append(current)
            current, used, extra = [], _ENVELOPE, size
        current.append(request)
        used += extra
    if current:
        batches.append(current)
    return batches, oversized
