"""A row's case content as the store kept it, verified against its hash, or why not.

A row names its content by ``content_sha256``; what it means that no content can be
had depends on the run's record policy (``options.record.content``) and on whether
the row is older than the content record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from verifier._internal.canonical import loads_exact
from verifier.gaps.content import content_sha256, record_mode
from verifier.gaps.store import GapStore
from verifier.recheck.report import Why

__all__ = ["CaseContent", "NoContent", "case_content"]


@dataclass(frozen=True, slots=True)
class CaseContent:
    """A stored content envelope: the case, and what its policy withheld."""

    case: dict[str, Any]
    withheld: dict[str, Any]


@dataclass(frozen=True, slots=True)
class NoContent:
    """Why a row's content cannot be re-checked.

    Attributes:
        tampered: For a tampered content, its key and the hash its bytes have instead.
    """

    why: Why
    detail: str
    tampered: tuple[str, str] | None = None


def case_content(
    store: GapStore,
    body: Mapping[str, Any],
    run_options: Mapping[str, Any] | None,
    purged: Mapping[str, tuple[int, str]] | None = None,
) -> CaseContent | NoContent:
    """The content a row body refers to, or why it cannot be had.

    Args:
        store: The store holding the row.
        body: The row's body, parsed.
        run_options: The options of the row's run (``None`` when the run is unknown).
        purged: The contents sealed purges removed (``verifier.gaps.record_seals``):
            a content missing that none covers was deleted behind the store's back.
    """
    if "content_sha256" not in body:
        return NoContent("before_content_record", "the row has no content_sha256")
    sha = body["content_sha256"]
    mode = record_mode(run_options)
    if not isinstance(sha, str):
        if mode == "none":
            return NoContent("content_not_recorded", "the run recorded no content")
        return NoContent("unreadable_case", f"case {body.get('case_id')} has no content hash")
    text = store.content(sha)
    if text is None:
        if mode == "hashes":
            return NoContent("content_hashes_only", f"only the hash {sha} was recorded")
        if purged is not None and sha in purged:
            n, when = purged[sha]
            return NoContent("content_purged", f"content {sha} purged at {when} (seal {n})")
        return NoContent("content_missing", f"content {sha} is not in the store")
    actual = content_sha256(text)
    if actual != sha:
        return NoContent("content_tampered", f"content {sha} hashes to {actual}", (sha, actual))
    try:
        envelope = loads_exact(text)
    except orjson.JSONDecodeError:
        envelope = None
    case = envelope.get("case") if isinstance(envelope, dict) else None
    if not isinstance(case, dict):
        return NoContent("content_missing", f"content {sha} holds no case object")
    withheld = envelope.get("withheld") if isinstance(envelope, dict) else None
    return CaseContent(case, withheld if isinstance(withheld, dict) else {})
