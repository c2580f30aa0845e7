"""The hash chain of a gap store: sealing drafts into rows, and checking one link.

Each row's *body* is the canonical JSON (sorted keys, compact, UTF-8) of the row
without ``row_hash``; it includes ``seq`` and ``prev_hash``, so a row's place in the
chain is part of what is hashed. ``row_hash = sha256(prev_hash_ascii + body)`` and
``prev_hash`` of row ``n`` is ``row_hash`` of row ``n - 1`` (``GENESIS`` for row 1).

The stored truth is the body bytes: the audit re-hashes exactly what was stored
instead of re-serialising a parsed row, so no JSON library's number formatting or key
order can ever make an untouched row look edited.

This is the hot path of every run (tens of thousands of rows a second), so it works
on plain dicts and tuples: no model validation per row.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any, NamedTuple

import orjson

from verifier._internal.canonical import CANONICAL_OPTIONS, canonical_json
from verifier.gaps.row_fields import (
    CHAIN_FIELDS,
    DRAFT_FIELDS,
    DRAFT_ORDER,
    LEGACY_DRAFT_FIELDS,
)

GENESIS = "0" * 64


_HEX64 = re.compile(r"[0-9a-f]{64}")
# The draft's values that a sealed row copies into columns, between seq and body.
_COLUMN_VALUES = itemgetter(
    "row_id", "run_id", "case_id", "claim_id", "kind", "status", "score", "recorded_at"
)


class ChainError(ValueError):
    """A draft or a chain position that cannot be sealed (a bug in the caller)."""


class SealedRow(NamedTuple):
    """A row with its chain position, in the column order of the stores
    (``verifier.gaps.row_fields.STORE_COLUMNS``).

    ``body`` is the canonical JSON text that was hashed; the other fields are copies
    of body values kept beside it so stores can index and filter without parsing.
    """

    seq: int
    row_id: str
    run_id: str
    case_id: str
    claim_id: str
    kind: str
    status: str
    score: float | None
    recorded_at: str
    body: str
    prev_hash: str
    row_hash: str


def row_hash_of(prev_hash: str, body: str | bytes) -> str:
    """Returns ``sha256(prev_hash + body)`` as hex, the hash that seals ``body``."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    return hashlib.sha256(prev_hash.encode("ascii") + body).hexdigest()


def verify_link(prev_hash: str, body: str | bytes, row_hash: str) -> bool:
    """Whether ``row_hash`` seals ``body`` after ``prev_hash``.

    Args:
        prev_hash: The ``row_hash`` of the previous row (``GENESIS`` for the first).
        body: The stored body, exactly as stored.
        row_hash: The hash recorded for the row.
    """
    try:
        return row_hash_of(prev_hash, body) == row_hash
    except UnicodeEncodeError:
        # A prev_hash that is not ASCII cannot be one this module produced.
        return False


def seal(drafts: Iterable[Mapping[str, Any]], last_seq: int, last_hash: str) -> list[SealedRow]:
    """Assigns chain positions to drafts and hashes them, in order.

    Args:
        drafts: Rows without ``seq``, ``prev_hash`` and ``row_hash``; each must have
            exactly the keys in ``DRAFT_FIELDS`` (or ``LEGACY_DRAFT_FIELDS``).
        last_seq: ``seq`` of the store's last row (0 for an empty store).
        last_hash: ``row_hash`` of the store's last row (``GENESIS`` when empty).

    Returns:
        One ``SealedRow`` per draft, seqs ``last_seq + 1`` onwards.

    Raises:
        ChainError: A draft has missing or extra keys, or the chain position is invalid.
    """
    if last_seq < 0 or not _HEX64.fullmatch(last_hash):
        raise ChainError(f"invalid chain position: seq {last_seq}, hash {last_hash!r}")
    sealed: list[SealedRow] = []
    add = sealed.append
    seq = last_seq
    prev = last_hash
    sha256 = hashlib.sha256
    dumps = orjson.dumps
    new_row = tuple.__new__  # SealedRow(...) would go through a Python-level __new__
    columns = _COLUMN_VALUES
    for draft in drafts:
        # Most drafts come from the runner, whose keys are DRAFT_ORDER: comparing that
        # tuple is cheaper than comparing the key sets, which remains the rule.
        if tuple(draft) != DRAFT_ORDER and not _draft_keys_ok(draft):
            raise ChainError(_draft_problem(draft))
        seq += 1
        row = dict(draft)
        row["seq"] = seq
        row["prev_hash"] = prev
        try:
            body = dumps(row, option=CANONICAL_OPTIONS)
        except (orjson.JSONEncodeError, TypeError):
            body = canonical_json(row)  # what orjson refuses: the same canonical form
        row_hash = sha256(prev.encode("ascii") + body).hexdigest()
        add(new_row(SealedRow, (seq, *columns(draft), body.decode("utf-8"), prev, row_hash)))
        prev = row_hash
    return sealed


def _draft_keys_ok(draft: Mapping[str, Any]) -> bool:
    keys = draft.keys()
    return keys in (DRAFT_FIELDS, LEGACY_DRAFT_FIELDS)


def _draft_problem(draft: Mapping[str, Any]) -> str:
    keys = set(draft.keys())
    # content_sha256 may be left out altogether (a row from before the content record).
    expected = DRAFT_FIELDS if "content_sha256" in keys else LEGACY_DRAFT_FIELDS
    missing = sorted(expected - keys)
    extra = sorted(keys - expected)
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing))
    if extra:
        chain_owned = [k for k in extra if k in CHAIN_FIELDS]
        parts.append("unexpected " + ", ".join(extra))
        if chain_owned:
            parts.append("the store assigns " + ", ".join(chain_owned) + " itself")
    return "draft gap row " + repr(draft.get("row_id", "?")) + ": " + "; ".join(parts)
