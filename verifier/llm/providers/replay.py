"""The ``replay`` provider: a judge that only ever answers from recorded verdicts.

A contract may declare ``provider: replay`` for a judge whose verdicts exist only as
recordings (hand-written examples, or verdicts recorded elsewhere). The judge phase
looks recordings and the cache up before any call, so reaching this provider means
nothing was recorded for the request: the result is an error naming the claim and
case, never a verdict.
"""

from __future__ import annotations

from typing import Any

from verifier.llm.types import ModelReply, ModelRequest, ProviderError, ProviderSpec


class ReplayProvider:
    """Answers nothing itself; every request it sees is a replay miss."""

    name = "replay"

    def __init__(self, spec: ProviderSpec, **_options: Any) -> None:
        self.model = spec.model

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        raise ProviderError(
            f"replay judge {self.model!r}: no recorded verdict for this request", retryable=False
        )

    async def aclose(self) -> None:
        return None
