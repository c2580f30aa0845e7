"""Pieces the contract models share: the frozen base and the sampling parameters."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Sampling(_Frozen):
    """Generation parameters sent to a judge or a prompt SUT; all enter ``sampling_sha``."""

    max_tokens: int = Field(default=1024, ge=1, le=128_000)
    stop_sequences: tuple[str, ...] = ()
    thinking: dict[str, Any] | None = Field(default=None, description="Extended thinking settings.")
    effort: Literal["low", "medium", "high", "max"] | None = None
    temperature: float | None = Field(
        default=None, ge=0, le=2, description="Only for providers and models that accept it."
    )
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=1)
    seed: int | None = None
