"""The generation parameters a model call actually sends, per provider.

``sampling_sha`` must describe what was sent, so a contract may not ask for a
parameter its provider cannot accept: the anthropic API (SDK 2.x) has no
temperature, top_p, top_k or seed, and recent Claude models reject them. Rather
than drop such a setting silently (and hash a promise the call never kept), it is
an error: each provider's entry in ``verifier.llm.providers.registry`` lists the
parameters it accepts, and ``unsupported_sampling`` there lets the contract lint
report the others up front. Determinism comes from pinning the model, caching
replies and repeated samples.

This module holds what a call sends once the settings are accepted: the settings'
shape and, per built-in provider, the parameters under that API's names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

SAMPLING_PARAMETERS: Final = (
    "max_tokens",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "seed",
    "thinking",
    "effort",
)
"""Every sampling setting a contract can make, in the order refusals are reported."""


class SamplingSettings(Protocol):
    """The sampling settings of a judge or a prompt system, as a contract makes them
    (``verifier.contract.models.Sampling``)."""

    @property
    def max_tokens(self) -> int: ...
    @property
    def stop_sequences(self) -> Sequence[str]: ...
    @property
    def thinking(self) -> Mapping[str, Any] | None: ...
    @property
    def effort(self) -> str | None: ...
    @property
    def temperature(self) -> float | None: ...
    @property
    def top_p(self) -> float | None: ...
    @property
    def top_k(self) -> int | None: ...
    @property
    def seed(self) -> int | None: ...


def set_parameters(sampling: SamplingSettings) -> list[str]:
    """Names of the settings ``sampling`` makes, in ``SAMPLING_PARAMETERS`` order.

    A value of ``0`` counts as set (``temperature: 0`` is a setting); an empty
    ``stop_sequences`` does not, since nothing of it is sent.
    """
    return [name for name in SAMPLING_PARAMETERS if getattr(sampling, name) not in (None, ())]


def anthropic_params(sampling: SamplingSettings) -> dict[str, Any]:
    """What the anthropic Messages API is sent, under its names (``output_config`` for
    the effort)."""
    sent: dict[str, Any] = {"max_tokens": sampling.max_tokens}
    if sampling.stop_sequences:
        sent["stop_sequences"] = list(sampling.stop_sequences)
    if sampling.thinking is not None:
        sent["thinking"] = dict(sampling.thinking)
    if sampling.effort is not None:
        sent["output_config"] = {"effort": sampling.effort}
    return sent


def openai_params(sampling: SamplingSettings) -> dict[str, Any]:
    """What an OpenAI-compatible chat completion is sent, under its names (``stop``)."""
    sent: dict[str, Any] = {"max_tokens": sampling.max_tokens}
    if sampling.stop_sequences:
        sent["stop"] = list(sampling.stop_sequences)
    for name in ("temperature", "top_p", "seed"):
        value = getattr(sampling, name)
        if value is not None:
            sent[name] = value
    return sent
