"""Limits on judge calls: concurrency, requests and tokens per minute, retry budget.

The judge phase makes its providers' SDKs not retry (``max_retries=0``: the SDK would
sleep as long as any ``retry-after`` asks) and retries itself, honouring
``retry-after`` up to ``max_wait``. A run keeps a budget of extra attempts, spent by
those retries and by second tries of unusable verdicts, so a provider outage ends the
run with error rows in minutes instead of retrying every call of a large suite.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass

from aiolimiter import AsyncLimiter


@dataclass(frozen=True)
class CallLimits:
    """How hard a run may press on a provider.

    Attributes:
        concurrency: Calls in flight at once.
        requests_per_minute: Calls started per minute (``None``: unlimited).
        tokens_per_minute: Estimated input tokens sent per minute (``None``: unlimited).
        timeout: Seconds one call may take before it counts as failed.
        retries: Extra attempts per call after a retryable failure.
        retry_budget: Extra attempts the whole run may spend (failed calls and
            unusable verdicts alike).
        max_wait: Longest ``retry-after`` honoured before giving up on a call.
    """

    concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    timeout: float = 120.0
    retries: int = 1
    retry_budget: int = 100
    max_wait: float = 120.0


class Limiter:
    """Admits calls under the concurrency, rate and token limits of one run."""

    def __init__(self, limits: CallLimits) -> None:
        self.limits = limits
        self._slots = asyncio.Semaphore(limits.concurrency)
        rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
        self._requests = AsyncLimiter(rpm, 60) if rpm else None
        self._tokens = AsyncLimiter(tpm, 60) if tpm else None
        self._budget = limits.retry_budget

    async def __aenter__(self) -> Limiter:
        await self._slots.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._slots.release()

    async def admit(self, estimated_tokens: int) -> None:
        """Waits until one more call of about ``estimated_tokens`` fits the rates."""
        if self._requests is not None:
            await self._requests.acquire()
        if self._tokens is not None:
            # A request larger than a minute's allowance still goes, alone, rather
            # than waiting forever.
            await self._tokens.acquire(min(float(estimated_tokens), self._tokens.max_rate))

    def take_retry(self) -> bool:
        """Spends one retry from the run's budget; ``False`` when it is used up."""
        if self._budget <= 0:
            return False
        self._budget -= 1
        return True


def estimate_tokens(*texts: str) -> int:
    """A rough input-token estimate (about four characters a token) for rate limiting."""
    return max(1, sum(len(t) for t in texts) // 4)


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[CallLimits, Limiter]] = (
    weakref.WeakKeyDictionary()
)


def shared_limiter(limits: CallLimits) -> Limiter:
    """The one ``Limiter`` of ``limits`` in the running event loop.

    Everything that calls a model in one run (judges, a prompt system under test, both
    variants) goes through it, so ``--concurrency``, ``--rpm``, ``--tpm`` and the retry
    budget bound the run as a whole, not each caller separately. Must be called from
    inside the loop (asyncio primitives belong to one).
    """
    per_loop = _SHARED.setdefault(asyncio.get_running_loop(), {})
    limiter = per_loop.get(limits)
    if limiter is None:
        limiter = per_loop[limits] = Limiter(limits)
    return limiter
