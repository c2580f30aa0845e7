"""The generation parameters a judge call actually sends, per provider.

``sampling_sha`` must describe what was sent, so a contract may not ask for a
parameter its provider cannot accept: the anthropic API (SDK 2.x) has no
temperature, top_p, top_k or seed, and recent Claude models reject them. Rather
than drop such a setting silently (and hash a promise the call never kept), it is
an error; ``unsupported_sampling`` lets the contract lint report it up front.
Determinism comes from pinning the model, caching replies and repeated samples.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from verifier.contract.models import Sampling

Provider = Literal["anthropic", "openai", "replay"]

_ANTHROPIC_UNSUPPORTED: Final = ("temperature", "top_p", "top_k", "seed")
# OpenAI-compatible chat completions have no top_k, and no portable spelling of
# Anthropic's thinking or effort settings (``reasoning_effort`` exists only on some
# models and servers), so neither is sent rather than guessed.
_OPENAI_UNSUPPORTED: Final = ("top_k", "thinking", "effort")

UNSUPPORTED: Final[dict[str, tuple[str, ...]]] = {
    "anthropic": _ANTHROPIC_UNSUPPORTED,
    # The replay provider stands in for an anthropic judge, so it refuses the same.
    "replay": _ANTHROPIC_UNSUPPORTED,
    "openai": _OPENAI_UNSUPPORTED,
}


def unsupported_sampling(provider: str, sampling: Sampling) -> list[str]:
    """Names of the parameters set in ``sampling`` that ``provider`` cannot send.

    Returns parameter names (``temperature``, ``top_k``, ...) in a fixed order, so the
    lint can point at ``sampling.<name>`` in the contract; ``unsupported_reason`` gives
    the message for each.
    """
    refused = UNSUPPORTED.get(provider)
    if refused is None:
        raise ValueError(f"unknown judge provider {provider!r}")
    return [name for name in refused if getattr(sampling, name) is not None]


def unsupported_reason(provider: str, name: str) -> str:
    """One line saying why ``provider`` cannot send sampling parameter ``name``."""
    if provider in ("anthropic", "replay"):
        return (
            f"sampling.{name}: the anthropic API does not accept {name}; remove it "
            "(judge determinism comes from a pinned model, caching and samples)"
        )
    return f"sampling.{name}: the {provider} provider cannot send {name}; remove it"


def sent_sampling(provider: str, sampling: Sampling) -> dict[str, Any]:
    """Exactly the generation parameters a call to ``provider`` will send.

    Args:
        provider: ``anthropic``, ``openai`` or ``replay``.
        sampling: The judge's sampling settings from the contract.

    Returns:
        The parameters under the names the provider's API uses; optional ones only
        when set (an empty ``stop_sequences`` is not sent).

    Raises:
        ValueError: A parameter is set that the provider does not accept.
    """
    refused = unsupported_sampling(provider, sampling)
    if refused:
        raise ValueError("; ".join(unsupported_reason(provider, name) for name in refused))
    if provider == "openai":
        return _openai(sampling)
    return _anthropic(sampling)


def _anthropic(sampling: Sampling) -> dict[str, Any]:
    sent: dict[str, Any] = {"max_tokens": sampling.max_tokens}
    if sampling.stop_sequences:
        sent["stop_sequences"] = list(sampling.stop_sequences)
    if sampling.thinking is not None:
        sent["thinking"] = dict(sampling.thinking)
    if sampling.effort is not None:
        sent["output_config"] = {"effort": sampling.effort}
    return sent


def _openai(sampling: Sampling) -> dict[str, Any]:
    sent: dict[str, Any] = {"max_tokens": sampling.max_tokens}
    if sampling.stop_sequences:
        sent["stop"] = list(sampling.stop_sequences)
    for name in ("temperature", "top_p", "seed"):
        value = getattr(sampling, name)
        if value is not None:
            sent[name] = value
    return sent
