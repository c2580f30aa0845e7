"""Pieces the contract models share: the frozen base, the sampling parameters and
the provider a judge or a prompt system names."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from verifier.llm.providers.registry import find_provider, provider_names
from verifier.rubric._scales import FRACTION_CHECK


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Sampling(_Frozen):
    """Generation parameters sent to a judge or a prompt SUT; all enter ``sampling_sha``."""

    max_tokens: int = Field(default=1024, ge=1, le=128_000)
    stop_sequences: tuple[str, ...] = ()
    thinking: dict[str, Any] | None = Field(default=None, description="Extended thinking settings.")
    effort: Literal["low", "medium", "high", "max"] | None = None
    temperature: float | None = Field(
        default=None, ge=0, le=2, description="Only for providers and models that accept it."
    )
    top_p: Annotated[float, Field(gt=0, le=1), FRACTION_CHECK] | None = None
    top_k: int | None = Field(default=None, ge=1)
    seed: int | None = None


def _registered(value: Any) -> Any:
    # The registry, not a fixed list, says which providers exist; the error reads as
    # the one a fixed choice of names would give.
    if find_provider(value) is None:
        *rest, last = [repr(name) for name in provider_names()]
        expected = f"{', '.join(rest)} or {last}" if rest else last
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )
    return value


def _provider_enum(schema: dict[str, Any]) -> None:
    schema["enum"] = list(provider_names())


ProviderName = Annotated[str, BeforeValidator(_registered)]
"""A registered provider's name (``verifier.llm.providers.registry``)."""


def provider_field(description: str) -> Any:
    """The ``provider`` field of a judge or a prompt system: a registered provider,
    listed as the schema's choices."""
    return Field(description=description, json_schema_extra=_provider_enum)
