"""The judge cache key: which parts of a request decide whether a stored reply fits.

Two requests share a key exactly when a provider would be asked the same question in
the same way, so a rerun with nothing changed makes no calls and any change that can
change the answer makes a new one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.llm.types import SystemBlock, ToolSpec

CACHE_KEY_VERSION: Final = 1
"""Bumped whenever the parts or their encoding change, so old entries stop matching."""

CACHE_KEY_PARTS: Final = (
    "provider",  # anthropic, bedrock, openai, replay...: different services answer differently
    "model",  # the requested (pinned) model id from the contract
    "base_url",  # an OpenAI-compatible endpoint: another server is another judge
    "prompt_sha",  # the template as committed
    "sampling_sha",  # every generation parameter sent
    "verdict",  # binary, scale, pairwise or generation (a prompt run as the system)
    "system",  # the static part as sent, with its cache marks
    "user",  # the dynamic part as sent, the nonce masked
    "tool",  # the forced tool: name, description and input schema (none for generation)
    "data",  # the untrusted values themselves (see below)
)
"""Every part of the key. ``data`` repeats the untrusted values (input, outputs) as
their own JSON values: inside ``user`` they are joined with fixed text, so an input
ending in what looks like the template's next line could otherwise make two different
(input, output) pairs render to the same masked message."""

EXCLUDED_FROM_CACHE_KEY: Final = {
    "nonce": "fresh random per request, so it would make every key unique; it is "
    "replaced by NONCE_MASK in `user` (the data can never contain it: rendering picks "
    "a nonce that occurs in no untrusted text)",
    "custom_id": "names the request within one run (batch results are matched by it); "
    "the same question asked in another run must hit the cache",
    "api key, endpoint from the environment": "the same judge reached with another key "
    "or through a proxy (ANTHROPIC_BASE_URL) is the same work; only a base_url the "
    "contract declares names a different server, and that is a key part",
    "served model, usage, latency": "properties of a reply, not of the question",
}

NONCE_MASK: Final = "NONCE"


def cache_key(
    *,
    provider: str,
    model: str,
    base_url: str | None,
    prompt_sha: str,
    sampling_sha: str,
    verdict: str,
    system: tuple[SystemBlock, ...],
    user: str,
    nonce: str,
    tool: ToolSpec | None,
    data: Mapping[str, Any],
) -> str:
    """SHA-256 hex over canonical JSON of ``CACHE_KEY_PARTS``, the nonce masked.

    Args:
        user: The user message as sent; every occurrence of ``nonce`` is masked.
        nonce: The request's nonce (excluded from the key).
        data: The untrusted values by placeholder name, as found in the case.
        Others: The parts of the same name.
    """
    parts: dict[str, Any] = {
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "prompt_sha": prompt_sha,
        "sampling_sha": sampling_sha,
        "verdict": verdict,
        "system": [{"text": b.text, "cache": b.cache} for b in system],
        "user": user.replace(nonce, NONCE_MASK) if nonce else user,
        "tool": None if tool is None else tool.as_dict(),
        "data": dict(data),
    }
    return sha256_hex(canonical_json({"v": CACHE_KEY_VERSION, "parts": parts}))
