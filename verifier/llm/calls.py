"""One model call within a run's limits, retried as the limits allow.

Judges and a prompt run as the system under test reach their providers the same way:
a slot of the run's concurrency, the request and token rates, a per-call timeout, and
retries of retryable failures (honouring ``retry-after`` up to ``max_wait``) drawn
from the run's retry budget.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from verifier.llm.limits import CallLimits, Limiter, estimate_tokens
from verifier.llm.types import ModelProvider, ModelReply, ModelRequest, ProviderError, Usage
from verifier.logs import get_logger

log = get_logger("verifier.judge")


@dataclass(slots=True)
class CallStats:
    """Counters of a run's model calls (shown by the progress bar and the summary)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    retries: int = 0
    usage: Usage = field(default_factory=Usage)

    def as_dict(self) -> dict[str, Any]:
        """The counters and token usage as one flat mapping, as the summary shows them."""
        return {
            "calls": self.calls,
            "cached": self.cached,
            "failed": self.failed,
            "retries": self.retries,
            **self.own_counts(),
            **self.usage.as_dict(),
        }

    def own_counts(self) -> dict[str, Any]:
        """Counters a caller adds to these (a judge's pairwise comparisons), placed
        before the token usage in ``as_dict``; none here."""
        return {}


async def call_within_limits(
    provider: ModelProvider,
    request: ModelRequest,
    *,
    limiter: Limiter,
    limits: CallLimits,
    stats: CallStats,
    what: str = "judge",
) -> tuple[ModelReply | None, str]:
    """Sends ``request``, retrying retryable failures; returns the reply, or ``None``
    and one line saying why (``what`` names the caller in it: judge, sut)."""
    tokens = estimate_tokens(request.user, *(b.text for b in request.system))
    attempt = 0
    while True:
        async with limiter:
            await limiter.admit(tokens)
            try:
                reply = await asyncio.wait_for(
                    provider.complete(request, timeout=limits.timeout), limits.timeout + 5
                )
            except TimeoutError:
                error = ProviderError(
                    f"{what} call timed out after {limits.timeout:g} s", retryable=True
                )
            except ProviderError as exc:
                error = exc
            else:
                stats.calls += 1
                stats.usage = stats.usage + reply.usage
                return reply, ""
        stats.calls += 1
        can_retry = error.retryable and attempt < limits.retries and limiter.take_retry()
        wait = error.retry_after if error.retry_after is not None else min(8.0, 0.5 * 2**attempt)
        if not can_retry or wait > limits.max_wait:
            log.warning(f"{what} call failed", error=error.message, custom_id=request.custom_id)
            return None, f"{what} call failed: {error.message}"
        attempt += 1
        stats.retries += 1
        await asyncio.sleep(wait * (1 + random.random() * 0.1))
