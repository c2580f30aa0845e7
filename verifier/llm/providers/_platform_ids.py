"""How Bedrock and Vertex AI name Claude's snapshots, and what each judge platform needs set.

Bedrock names a snapshot ``anthropic.claude-sonnet-4-5-20250929-v1:0`` (with a
cross-region inference profile's geography before it: ``us.anthropic...``), Vertex AI
``claude-sonnet-4-5@20250929``; both answer with the model's Anthropic id
(``claude-sonnet-4-5-20250929``). ``base_model`` maps a platform id to that id, so the
SDK's tables (retirements, aliases) answer for platform ids too, and a reply naming the
model the platform id stands for counts as served as asked.

Read by the registry and the lint: nothing here imports an SDK.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from verifier.llm.pinning import BEDROCK_GEOGRAPHIES
from verifier.llm.providers._sdk_tables import dated_snapshot, undated_snapshot

__all__ = [
    "bedrock_base",
    "bedrock_snapshot",
    "bedrock_undated_pinned",
    "missing_setting",
    "vertex_base",
    "vertex_snapshot",
    "vertex_undated_pinned",
]

_BEDROCK_ID = re.compile(
    rf"(?P<geo>(?:{BEDROCK_GEOGRAPHIES})\.)?anthropic\.(?P<base>.+?)(?P<version>-v[0-9]+(?::[0-9]+)?)?"
)


_DATED = re.compile(r".+-[0-9]{8}")


def _undated_snapshot(model: str) -> bool:
    """Whether ``model`` is an Anthropic id without a date that names a fixed snapshot
    (an Anthropic id with its date is no platform id: the dated forms judge those)."""
    return _DATED.fullmatch(model) is None and undated_snapshot(model)


def bedrock_base(model: str) -> str:
    """The Anthropic id a Bedrock model id stands for (the id itself when it is no
    Bedrock Claude id)."""
    match = _BEDROCK_ID.fullmatch(model)
    return match["base"] if match else model


def bedrock_undated_pinned(model: str) -> bool:
    """Whether ``model`` is a versioned Bedrock id of a Claude model the SDK lists
    undated with no dated sibling (``anthropic.claude-opus-4-6-v1``): a fixed snapshot."""
    match = _BEDROCK_ID.fullmatch(model)
    return bool(match and match["version"] and _undated_snapshot(match["base"]))


def bedrock_snapshot(model: str) -> str | None:
    """The dated Bedrock id to pin for an id that moves with new snapshots, or ``None``."""
    match = _BEDROCK_ID.fullmatch(model)
    dated = dated_snapshot(match["base"]) if match else None
    if match is None or dated is None:
        return None
    return f"{match['geo'] or ''}anthropic.{dated}{match['version'] or '-v1:0'}"


def vertex_base(model: str) -> str:
    """The Anthropic id a Vertex AI model id stands for (``x@YYYYMMDD`` -> ``x-YYYYMMDD``)."""
    stem, at, date = model.partition("@")
    return f"{stem}-{date}" if at else model


def vertex_undated_pinned(model: str) -> bool:
    """Whether ``model`` is an undated Claude id the SDK lists with no dated sibling."""
    return "@" not in model and _undated_snapshot(model)


def vertex_snapshot(model: str) -> str | None:
    """The dated Vertex AI id to pin for an id that moves with new snapshots, or ``None``."""
    dated = dated_snapshot(model) if "@" not in model else None
    if dated is None:
        return None
    stem, _, date = dated.rpartition("-")
    return f"{stem}@{date}"


# Per provider: (setting, its environment variable, what to write) for each value the
# SDK's client cannot do without. A value comes from the judge's key, else the variable.
_NEEDED: dict[str, tuple[tuple[str, str, str], ...]] = {
    "bedrock": (("region", "AWS_REGION", "us-east-1"),),
    "vertex": (
        ("region", "CLOUD_ML_REGION", "us-east5, europe-west1 or global"),
        ("project", "ANTHROPIC_VERTEX_PROJECT_ID", "your Google Cloud project id"),
    ),
    "foundry": (
        (
            "base_url",
            "ANTHROPIC_FOUNDRY_RESOURCE",
            "https://RESOURCE.services.ai.azure.com/anthropic/",
        ),
    ),
}
_ALSO: dict[str, tuple[str, ...]] = {
    "AWS_REGION": ("AWS_DEFAULT_REGION",),
    "ANTHROPIC_FOUNDRY_RESOURCE": ("ANTHROPIC_FOUNDRY_BASE_URL",),
}


def missing_setting(provider: str, settings: Mapping[str, Any]) -> str | None:
    """What a judge on ``provider`` with ``settings`` (its ``region``, ``project`` and
    ``base_url``) lacks to reach its platform, in one line; ``None`` when nothing.

    A value missing from the judge may come from the platform's usual environment
    variable, as the SDK's client reads it.
    """
    for key, variable, example in _NEEDED.get(provider, ()):
        if settings.get(key):
            continue
        if any(os.environ.get(name) for name in (variable, *_ALSO.get(variable, ()))):
            continue
        return (
            f"provider {provider} needs a {key}: set `{key}:` on the judge ({example}), "
            f"or {variable}"
        )
    return None
