"""The content record: what a case's claims read, stored once per distinct content.

A gap row says what was decided; its case's *content* says what it was decided about.
The content of a case is the case exactly as its claims saw it (input, output, every
other field, a system under test's output and ``runs``, the ``baseline`` case a
comparison used), wrapped in an envelope::

    {"case": {...}, "withheld": {"output": {"why": "redacted", "sha256": "...", "bytes": 812}}}

``withheld`` is present only when something was left out: a field the contract
redacts is replaced by a marker string and listed with the SHA-256 of its value, and
a text longer than ``max_bytes`` is cut with the SHA-256 and length of the whole.
The envelope's canonical JSON is stored under its own SHA-256 (``content_sha256``),
which every gap row of the case carries in its body, so the hash chain covers what
was judged and any edit of a stored content is detectable.

How much is kept is the contract's ``record:`` block (or ``--record-content``):
``full`` (the default) stores the content; ``hashes`` stores nothing but still puts
the hash of the full content in every row (whoever holds the case can prove it is
the one judged); ``none`` records neither.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from verifier._internal.canonical import canonical_json
from verifier.fieldpath import compile_path

__all__ = [
    "CONTENT_MODES",
    "ContentMode",
    "RecordPolicy",
    "build_content",
    "content_hash_of",
    "content_sha256",
    "record_mode",
]

ContentMode: TypeAlias = Literal["full", "hashes", "none"]
CONTENT_MODES: tuple[str, ...] = ("full", "hashes", "none")

REDACTED_MARK = "[redacted]"
CUT_MARK = "…[cut]"

# Bodies are canonical JSON with sorted keys, so a row's own "content_sha256" comes
# before its "evidence", the only field whose value may hold keys of its own; every
# field that sorts before "evidence" holds a string or a number, in which a quote is
# escaped. So the first occurrence of each key is the row's own, and a first
# "content_sha256" after the first "evidence" belongs to the evidence.
_KEY = '"content_sha256":'
_EVIDENCE = '"evidence":'


@dataclass(frozen=True, slots=True)
class RecordPolicy:
    """What of a case's content is kept.

    Attributes:
        content: ``full``, ``hashes`` or ``none`` (see the module docstring).
        redact: Field paths (``*`` allowed) whose values are stored as their hash.
        max_bytes: Texts longer than this many UTF-8 bytes are cut (``None``: never).
    """

    content: ContentMode = "full"
    redact: tuple[str, ...] = ()
    max_bytes: int | None = None
    _paths: tuple[Any, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_paths", tuple(compile_path(p) for p in self.redact))

    @property
    def plain(self) -> bool:
        """Whether content is kept whole: no redaction, no cut."""
        return not self.redact and self.max_bytes is None

    @property
    def keeps_replies(self) -> bool:
        """Whether model replies (which may quote the case) may be kept in the store's
        judge cache: not when fields are redacted or no case text is recorded."""
        return not self.redact and self.content == "full"

    def as_record(self) -> dict[str, Any]:
        """The policy as recorded in a run's options."""
        return {"content": self.content, "redact": list(self.redact), "max_bytes": self.max_bytes}


FULL = RecordPolicy()


def content_sha256(body: bytes | str) -> str:
    """The key of a stored content: the SHA-256 (hex) of its canonical JSON bytes."""
    if isinstance(body, str):
        body = body.encode("utf-8")
    return hashlib.sha256(body).hexdigest()


def build_content(case: Mapping[str, Any], policy: RecordPolicy = FULL) -> tuple[str, bytes] | None:
    """The content of one case under a policy: its hash and the bytes to store.

    Returns:
        ``None`` when the policy records no content (``none``), or when the case
        cannot be written as JSON at all (nested deeper than a JSON writer goes);
        otherwise ``(sha256, body)``, where ``body`` is empty under ``hashes``
        (nothing is stored, and the hash is that of the full content).
    """
    try:
        return _build(case, policy)
    except (RecursionError, ValueError, TypeError):
        return None


def _build(case: Mapping[str, Any], policy: RecordPolicy) -> tuple[str, bytes] | None:
    mode = policy.content
    if mode == "none":
        return None
    if mode == "hashes" or policy.plain:
        body = canonical_json({"case": case})
        return content_sha256(body), (b"" if mode == "hashes" else _held(body))
    withheld: dict[str, dict[str, Any]] = {}
    kept = _withhold(case, policy, withheld)
    envelope: dict[str, Any] = {"case": kept}
    if withheld:
        envelope["withheld"] = withheld
    body = canonical_json(envelope)
    return content_sha256(body), _held(body)


def _held(body: bytes) -> bytes:
    """``body`` copied to an exact-size object, as a run holds a chunk's contents.

    orjson's output keeps the allocation it was written into; holding a chunk of
    them makes the allocator grow (and later trim) the heap for every one, about three
    times the cost of the copy (measured: 4 µs against 1 a case, see ADR 0046).
    """
    return bytes(memoryview(body))


def content_hash_of(body: str) -> str | None:
    """The ``content_sha256`` a stored row body carries, without parsing the body.

    ``None`` when the row has none (a row written before contents were recorded, a
    line that could not be read, or a contract that records no content).
    """
    at = body.find(_KEY)
    if at < 0:
        return None
    evidence = body.find(_EVIDENCE)
    if 0 <= evidence < at:
        return None
    start = at + len(_KEY)
    if body.startswith('"', start) and body.startswith('"', start + 65):
        return body[start + 1 : start + 65]
    return None


def _withhold(
    case: Mapping[str, Any], policy: RecordPolicy, withheld: dict[str, dict[str, Any]]
) -> Any:
    # Copied first, nothing shared: the case itself goes on to the reports untouched.
    kept: Any = _copy(case)
    for path in policy._paths:
        for concrete, value in path.find(kept):
            if concrete in withheld:
                continue
            raw = canonical_json(value)
            withheld[concrete] = {
                "why": "redacted",
                "sha256": content_sha256(raw),
                "bytes": len(raw),
            }
            _replace(kept, concrete.split("."), REDACTED_MARK)
    if policy.max_bytes is not None:
        _cut_texts(kept, (), policy.max_bytes, withheld)
    return kept


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value


def _replace(node: Any, parts: Sequence[str], new: Any) -> None:
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = new
    else:
        node[last] = new


def _cut_texts(
    node: Any, trail: tuple[str, ...], limit: int, withheld: dict[str, dict[str, Any]]
) -> None:
    items: Any
    if isinstance(node, dict):
        items = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return
    for key, value in items:
        here = (*trail, str(key))
        if isinstance(value, str):
            raw = value.encode("utf-8")
            if len(raw) > limit and value != REDACTED_MARK:
                head = raw[:limit].decode("utf-8", errors="ignore")
                node[key] = head + CUT_MARK
                withheld[".".join(here)] = {
                    "why": "cut",
                    "sha256": content_sha256(canonical_json(value)),
                    "bytes": len(raw),
                }
        else:
            _cut_texts(value, here, limit, withheld)


def record_mode(options: Mapping[str, Any] | None) -> str:
    """The content mode a run recorded under (its ``options.record.content``): ``full``
    when it names none, as runs before the record policy stored every content."""
    record = options.get("record") if options else None
    mode = record.get("content") if isinstance(record, Mapping) else None
    return mode if isinstance(mode, str) else "full"


def recorded_policy(options: Mapping[str, Any] | None) -> RecordPolicy:
    """The record policy a run recorded in its options (``options.record``): the full
    policy when it names none, as runs before the record policy kept everything."""
    record = options.get("record") if options else None
    if not isinstance(record, Mapping):
        return FULL
    redact = record.get("redact")
    limit = record.get("max_bytes")
    return RecordPolicy(
        content=record_mode(options),  # type: ignore[arg-type]
        redact=tuple(str(p) for p in redact) if isinstance(redact, list) else (),
        max_bytes=limit if isinstance(limit, int) else None,
    )
