"""A judge request for a prompt stored at the vendor (an OpenAI stored prompt).

The vendor keeps the prompt's text; the request names it by id and pinned version and
passes the data as its variables: ``input``, ``output`` (or ``output_1`` and
``output_2`` for a pairwise verdict), ``assertions`` (the claims as JSON), ``scale``
(for scale verdicts), ``reference`` (for claims with a reference) and ``nonce``. The
data variables are the same nonce-fenced
blocks a template receives (``<output-NONCE>...</output-NONCE>``): the vendor's
template is not ours to see, so the fencing cannot be left to it. The verdict tool is
forced as for any judge, and the reply is parsed the same way.

Such a judge's ``prompt_sha`` is ``vendor-managed:openai:responses``; which prompt and
version judged is recorded in every row's evidence (``stored_prompt_evidence``), and
enters the cache key, so a new version is a new judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from verifier._internal.canonical import canonical_json
from verifier.contract.models import JudgeSpec
from verifier.llm.cache_key import cache_key
from verifier.llm.providers.openai_responses import PROMPT_SHA, responses_sampling
from verifier.llm.providers.registry import sent_sampling
from verifier.llm.triple import sampling_sha_of
from verifier.llm.types import ModelRequest, StoredPromptCall, ToolSpec, VerdictKind

__all__ = ["FIXED_VARIABLES", "stored_prompt_evidence", "stored_prompt_request"]

FIXED_VARIABLES: Final = ("assertions", "nonce")
"""Variables every stored-prompt request sends, besides its data (and ``scale``)."""


def stored_prompt_evidence(spec: JudgeSpec) -> dict[str, Any]:
    """``{"stored_prompt": {"id", "version"}}`` for a row judged through a stored prompt,
    else nothing: the ``prompt_sha`` sentinel does not say which prompt judged."""
    stored = spec.stored_prompt
    if stored is None:
        return {}
    return {"stored_prompt": {"id": stored.id, "version": stored.version}}


def stored_prompt_request(
    *,
    spec: JudgeSpec,
    kind: VerdictKind,
    tool: ToolSpec,
    values: Mapping[str, str],
    data: Mapping[str, Any],
    nonce: str,
    custom_id: str,
) -> ModelRequest:
    """The request asking ``spec``'s stored prompt for a ``kind`` verdict.

    Args:
        spec: The judge; its ``stored_prompt`` names the prompt.
        kind: The verdict kind.
        tool: The verdict tool bounded for the request's claims (it is forced).
        values: Every placeholder value as a template would be filled with it (the data
            already in nonce-fenced blocks, ``assertions``, ``scale``, ``nonce``).
        data: The untrusted values themselves, by name (they enter the cache key).
        nonce: The request's nonce.
        custom_id: The request's id within the run.

    Raises:
        ValueError: The judge has no stored prompt, or no pinned version, or sampling
            the Responses API cannot take (the contract lint reports these first).
    """
    stored = spec.stored_prompt
    if stored is None or stored.version is None:
        raise ValueError("a stored-prompt judge needs stored_prompt with an id and a version")
    names = [*data, *FIXED_VARIABLES, *(["scale"] if kind == "scale" else [])]
    if values.get("reference"):  # reference-guided claims: their fenced material too
        names.append("reference")
    call = StoredPromptCall(stored.id, stored.version, {name: values[name] for name in names})
    sampling = responses_sampling(sent_sampling(spec.provider, spec.sampling))
    sampling_sha = sampling_sha_of(sampling)
    # The prompt object is what the call sends in place of messages, so it is the
    # request's ``user``: its id, version and variables key the cache.
    user = canonical_json({"prompt": call.as_dict()}).decode("utf-8")
    shared: dict[str, Any] = {
        "provider": spec.provider,
        "model": spec.model,
        "base_url": spec.base_url,
        "prompt_sha": PROMPT_SHA,
        "sampling_sha": sampling_sha,
        "verdict": kind,
        "system": (),
        "user": user,
        "tool": tool,
        "nonce": nonce,
    }
    key = cache_key(**shared, data=dict(data))
    return ModelRequest(
        **shared, sampling=sampling, custom_id=custom_id, cache_key=key, stored_prompt=call
    )
