"""Rendering one judge request from a template, the claims and a case.

The static part of the template becomes the system prompt (marked for prompt caching
when it is long enough to be cached); the dynamic part becomes the user message.
Untrusted text (the case's input, the outputs judged, a claim's reference material and
any case field the template shows with ``{{case.PATH}}``) enters only inside blocks
whose tags carry a random nonce fresh for each request, e.g.
``<output-3f9c...>...</output-3f9c...>``, ``<expected-output-3f9c...>`` or
``<case.retrieved-3f9c...>``: the nonce is chosen to occur in none of that text, so
the text cannot close its block or pose as instructions.
"""

from __future__ import annotations

import functools
import json
import math
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Final

from verifier._internal.canonical import canonical_json
from verifier.contract.judge_template import (
    CASE_PREFIX,
    Template,
    case_paths,
    fill,
    validate_template,
)
from verifier.contract.models import CompareClaim, JudgeClaim, JudgeSpec, Scale
from verifier.fieldpath import MISSING, compile_path
from verifier.judge.stored_prompt import stored_prompt_request
from verifier.judge.tools import request_tool, verdict_tool
from verifier.llm.cache_key import cache_key
from verifier.llm.providers.registry import sent_sampling
from verifier.llm.triple import judge_prompt_sha as _judge_prompt_sha
from verifier.llm.triple import sampling_sha_of
from verifier.llm.types import ModelRequest, SystemBlock, ToolSpec, VerdictKind

RENDERING_VERSION: Final = 2
"""The version of how a request is rendered from its template (assertions, scales,
delimited data, the verdict tool bounded for the request's claims). It enters every
judge's ``prompt_sha``: raise it with any change to this module that changes what a
judge reads, so verdicts before and after are not taken for the same judge's.

2: the tool's schema states the claims' ids, criteria counts and scale bounds."""

CHARS_PER_TOKEN: Final = 4
"""Token estimate: about four characters of English per token. It only decides whether
to ask for caching, where a wrong guess is cheap: a block below the provider's minimum
is simply not cached, at no extra charge."""

# Anthropic's minimum cacheable prefix by model family, first match wins. The cached
# prefix is the tools and the system prompt, so both count. Unknown models get the
# smallest minimum, because asking for caching too often costs nothing.
MIN_CACHEABLE_TOKENS: Final = (
    ("opus-4-6", 4096),
    ("opus-4-5", 4096),
    ("haiku-4-5", 4096),
    ("sonnet-4-6", 2048),
    ("haiku", 2048),
)
DEFAULT_MIN_CACHEABLE_TOKENS: Final = 1024

DATA_TAGS: Final = {
    "input": "input",
    "output": "output",
    "output_1": "response-1",
    "output_2": "response-2",
}

REFERENCE_BLOCKS: Final = {
    "instructions": ("instructions", "The instructions the system was given:"),
    "expected": ("expected-output", "An expected output (one acceptable answer):"),
    "bad": ("bad-output", "A known bad output (a failure to avoid):"),
    "why": ("why-bad", "Why that output is bad:"),
}
"""Each reference role's tag and the line that introduces its block, in reading order."""


class MissingFieldError(LookupError):
    """The field a claim judges is absent from the case (a fail naming the path)."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"field {path} is missing")


@functools.lru_cache(maxsize=256)
def _prompt_sha(text: str, kind: VerdictKind) -> str:
    return _judge_prompt_sha(text, verdict_tool(kind), RENDERING_VERSION)


def judge_prompt_sha(template: Template, kind: VerdictKind) -> str:
    """The ``prompt_sha`` of a judge asked for ``kind`` verdicts through ``template``:
    the normalised template, the verdict tool of ``kind`` and ``RENDERING_VERSION``."""
    return _prompt_sha(template.text, kind)


def verdict_kind(claim: JudgeClaim | CompareClaim) -> VerdictKind:
    """The kind of verdict a claim asks its judge for."""
    if isinstance(claim, CompareClaim):
        if claim.compare != "pairwise":
            raise ValueError(f"claim {claim.id}: a {claim.compare} comparison has no judge")
        return "pairwise"
    if claim.critique is not None:
        return "critique"
    if claim.compliance is not None:
        return "compliance"
    return "scale" if claim.scale is not None else "binary"


def has_reference(claim: JudgeClaim | CompareClaim) -> bool:
    """Whether the claim's judge compares the output with reference material."""
    return isinstance(claim, JudgeClaim) and claim.reference is not None


def _reference_paths(claim: JudgeClaim | CompareClaim) -> tuple[tuple[str, str], ...]:
    reference = claim.reference if isinstance(claim, JudgeClaim) else None
    return tuple(reference.paths().items()) if reference is not None else ()


def group_key(
    claim: JudgeClaim | CompareClaim,
) -> tuple[str, VerdictKind, str, tuple[tuple[str, str], ...]]:
    """Claims that can share one ``group: case`` request have equal keys.

    One request has one tool (so one verdict kind), one judged field and one set of
    reference material.
    """
    return (claim.judge or "", verdict_kind(claim), claim.field, _reference_paths(claim))


def min_cacheable_tokens(model: str) -> int:
    """The smallest prefix, in tokens, the provider caches for ``model``."""
    return next(
        (n for part, n in MIN_CACHEABLE_TOKENS if part in model), DEFAULT_MIN_CACHEABLE_TOKENS
    )


def estimated_tokens(text: str) -> int:
    """A rough token count (``CHARS_PER_TOKEN`` characters each)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def worth_caching(static: str, tool: ToolSpec, model: str) -> bool:
    """Whether the prefix (tool definition and static part) reaches the cache minimum."""
    prefix = static + json.dumps(tool.input_schema) + tool.description
    return estimated_tokens(prefix) >= min_cacheable_tokens(model)


def as_text(value: Any) -> str:
    """A case value as the judge reads it: strings as they are, others as pretty JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def render_request(
    *,
    spec: JudgeSpec,
    template: Template,
    kind: VerdictKind,
    claims: Sequence[JudgeClaim | CompareClaim],
    case: Mapping[str, Any],
    outputs: tuple[Any, ...] | None = None,
    custom_id: str,
) -> ModelRequest:
    """Renders the request that asks ``spec``'s judge about ``claims`` on one case.

    Args:
        spec: The judge.
        template: Its template for ``kind`` (``load_template``).
        kind: The verdict kind; every claim must ask for it.
        claims: One claim (``group: claim``) or several of one judge, kind and field
            (``group: case``; see ``group_key``). A pairwise request has one claim.
        case: The case; its ``input``, each claim's ``field``, its reference's fields
            and every field the template shows (``{{case.PATH}}``) are read from it.
        outputs: For pairwise, the two outputs in the order shown (Response 1, then
            Response 2); when omitted, the claim's ``outputs`` paths are read from the case.
        custom_id: The request's id within the run.

    Raises:
        MissingFieldError: The judged field, a reference's field or a field the
            template shows is absent from the case.
        ValueError: The claims cannot share a request, or the template or sampling does
            not fit (the contract lint reports these before any run).
    """
    _check_claims(spec, template, kind, claims)
    data = _data(kind, claims, case, outputs)
    fields = {CASE_PREFIX + path: _field(path, case) for path in case_paths(template)}
    references = {role: _field(path, case) for role, path in _reference_paths(claims[0])}
    texts = {name: as_text(value) for name, value in data.items()}
    texts.update({f"reference.{role}": as_text(value) for role, value in references.items()})
    # Canonical JSON, so a field renders (and keys the cache) the same however the
    # case file spelled it.
    texts.update({name: _field_text(value) for name, value in fields.items()})
    values = {"assertions": _assertions(kind, claims), "scale": _scales(claims)}
    nonce = _fresh_nonce([*texts.values(), *values.values(), template.dynamic])
    values["nonce"] = nonce
    tags = {**DATA_TAGS, **{name: name for name in fields}}
    for name, tag in tags.items():
        text = texts.get(name, "")
        values[name] = f"<{tag}-{nonce}>\n{text}\n</{tag}-{nonce}>"
    values["reference"] = _reference_blocks(references, texts, nonce)
    tool = request_tool(kind, claims)
    if spec.stored_prompt is not None:  # the vendor fills its own template
        return stored_prompt_request(
            spec=spec,
            kind=kind,
            tool=tool,
            values=values,
            data={**data, **fields},
            nonce=nonce,
            custom_id=custom_id,
        )
    user = fill(template.dynamic, values)
    system = (SystemBlock(template.static, cache=worth_caching(template.static, tool, spec.model)),)
    sampling = sent_sampling(spec.provider, spec.sampling)
    sampling_sha = sampling_sha_of(sampling)
    prompt_sha = judge_prompt_sha(template, kind)
    key = cache_key(
        provider=spec.provider,
        model=spec.model,
        base_url=spec.base_url,
        prompt_sha=prompt_sha,
        sampling_sha=sampling_sha,
        verdict=kind,
        system=system,
        user=user,
        nonce=nonce,
        tool=tool,
        data={**data, **fields, **{f"reference.{k}": v for k, v in references.items()}},
    )
    return ModelRequest(
        provider=spec.provider,
        model=spec.model,
        system=system,
        user=user,
        tool=tool,
        sampling=sampling,
        verdict=kind,
        prompt_sha=prompt_sha,
        sampling_sha=sampling_sha,
        custom_id=custom_id,
        base_url=spec.base_url,
        cache_key=key,
        nonce=nonce,
    )


def _check_claims(
    spec: JudgeSpec,
    template: Template,
    kind: VerdictKind,
    claims: Sequence[JudgeClaim | CompareClaim],
) -> None:
    if not claims:
        raise ValueError("a judge request needs at least one claim")
    ids = ", ".join(c.id for c in claims)
    if len(claims) > 1 and (spec.group == "claim" or kind == "pairwise"):
        raise ValueError(f"claims {ids} cannot share one request (group: {spec.group}, {kind})")
    keys = {group_key(c) for c in claims}
    if len(keys) > 1 or next(iter(keys))[1] != kind:
        raise ValueError(f"claims {ids} do not all ask one judge for a {kind} verdict on one field")
    problems = validate_template(template.text, kind, reference=has_reference(claims[0]))
    if problems:
        raise ValueError(f"judge template {template.source}: " + "; ".join(problems))


def _data(
    kind: VerdictKind,
    claims: Sequence[JudgeClaim | CompareClaim],
    case: Mapping[str, Any],
    outputs: tuple[Any, ...] | None,
) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if "input" in case:
        data["input"] = case["input"]
    claim = claims[0]
    if kind != "pairwise":
        data["output"] = _field(claim.field, case)
        return data
    if outputs is None and isinstance(claim, CompareClaim) and claim.outputs:
        outputs = tuple(_field(path, case) for path in claim.outputs)
    if outputs is None or len(outputs) != 2:
        raise ValueError(f"claim {claim.id}: a pairwise request compares exactly two outputs")
    data["output_1"], data["output_2"] = outputs
    return data


def _field(path: str, case: Mapping[str, Any]) -> Any:
    compiled = compile_path(path)
    if compiled.has_wildcard:
        found = [value for _, value in compiled.find(case)]
        if not found:
            raise MissingFieldError(path)
        return found
    value = compiled.get(case)
    if value is MISSING:
        raise MissingFieldError(path)
    return value


def _reference_blocks(references: Mapping[str, Any], texts: Mapping[str, str], nonce: str) -> str:
    """The reference material, each role in its own fenced block after a line saying
    what it is; empty for a claim without a reference."""
    blocks = []
    for role in references:
        tag, heading = REFERENCE_BLOCKS[role]
        text = texts[f"reference.{role}"]
        blocks.append(f"{heading}\n<{tag}-{nonce}>\n{text}\n</{tag}-{nonce}>")
    return "\n\n".join(blocks)


def _field_text(value: Any) -> str:
    return value if isinstance(value, str) else canonical_json(value).decode("utf-8")


def _fresh_nonce(texts: Sequence[str]) -> str:
    # 64 random bits make a collision with the data astronomically unlikely; checking
    # makes it impossible, which the masked cache key relies on.
    while True:
        nonce = secrets.token_hex(8)
        if not any(nonce in text for text in texts):
            return nonce


def _assertions(kind: VerdictKind, claims: Sequence[JudgeClaim | CompareClaim]) -> str:
    entries: list[dict[str, Any]] = []
    for claim in claims:
        if kind == "pairwise":
            # Only the instruction: a claim id such as "no_worse_than_baseline" would
            # tell the judge which response is whose.
            entries.append({"instruction": claim.instruction})
            continue
        entry: dict[str, Any] = {"id": claim.id, "instruction": claim.instruction}
        if isinstance(claim, JudgeClaim):
            entry["criteria"] = list(claim.criteria)
        entries.append(entry)
    return json.dumps(entries, indent=2, ensure_ascii=False)


def _scales(claims: Sequence[JudgeClaim | CompareClaim]) -> str:
    # The pass mark (pass_at) is left out on purpose: the judge places the output on
    # the scale, and knowing where the line is would pull scores towards it.
    blocks = [_scale_text(c.id, c.scale) for c in claims if isinstance(c, JudgeClaim) and c.scale]
    return "\n\n".join(blocks)


def _scale_text(claim_id: str, scale: Scale) -> str:
    lines = [f"{claim_id}: an integer from {scale.min} to {scale.max}"]
    lines += [f"  {score}: {scale.anchors[score]}" for score in sorted(scale.anchors)]
    return "\n".join(lines)
