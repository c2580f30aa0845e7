"""Which part of a case decided a result, read from the offsets its evidence already holds.

Rubric predicates record where they looked and what they found in character offsets:
a regex match (``path``, ``start``, ``end``), the values ``contains`` and
``not_contains`` found (``path`` and ``found``), the places citations were grounded
(``offsets`` with ``within``), a citation span not found at all (``path`` and
``span``, the texts it was looked for in as ``within``) and where it came closest
(``nearest``). Combinators nest their items' evidence under ``items``. Reading those keys,
rather than a key of their own, highlights rows stored before any report showed them.

A text is then split into segments, plain, marked or an elision note, that the HTML
page, the console and ``verifier show`` each draw in their own way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["MAX_SPANS", "Segment", "Span", "deciding_spans", "evidence_paths", "segments"]

MAX_SPANS = 20
"""Spans kept per result: enough to show a pattern, bounded whatever the evidence."""
_MAX_DEPTH = 8

SegmentKind = Literal["text", "mark", "gap"]
Segment = tuple[SegmentKind, str]
"""A piece of a shown text: plain, highlighted, or a note standing for text left out."""


@dataclass(frozen=True, slots=True)
class Span:
    """A place in a case's field that decided a result.

    Attributes:
        field: The concrete field path (``output``, ``field_meta.arr.source_span``).
        start: Offset of the first character, or ``None`` for the whole value.
        end: Offset after the last character, or ``None`` for the whole value.
        label: What the place is: ``match``, ``banned value``, ``value found``,
            ``cited span``, ``span not found``, ``nearest match``.
    """

    field: str
    start: int | None
    end: int | None
    label: str


def deciding_spans(evidence: Any) -> list[Span]:
    """The places a result's evidence points at, at most ``MAX_SPANS``, in evidence order."""
    spans: list[Span] = []
    _collect(evidence, spans, 0)
    return spans[:MAX_SPANS]


def evidence_paths(evidence: Any) -> list[str]:
    """The fields a result's evidence names by ``path`` (an enum's value, a schema's
    object, a text searched in vain) or ``within`` (the texts a citation was looked for
    in), at most four: shown beside the case's output."""
    paths: list[str] = []
    _paths(evidence, paths, 0)
    return list(dict.fromkeys(paths))[:4]


def _paths(evidence: Any, paths: list[str], depth: int) -> None:
    if not isinstance(evidence, Mapping) or depth > _MAX_DEPTH or len(paths) >= MAX_SPANS:
        return
    if isinstance(evidence.get("path"), str):
        paths.append(evidence["path"])
    within = evidence.get("within")
    if isinstance(within, list):
        paths.extend(w for w in within if isinstance(w, str))
    items = evidence.get("items")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, Mapping):
                _paths(item.get("evidence"), paths, depth + 1)


def _offset(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _collect(evidence: Any, spans: list[Span], depth: int) -> None:
    if not isinstance(evidence, Mapping) or depth > _MAX_DEPTH or len(spans) >= MAX_SPANS:
        return
    items = evidence.get("items")
    if isinstance(items, list):
        for item in items:
            if isinstance(item, Mapping):
                _collect(item.get("evidence"), spans, depth + 1)
    path = evidence.get("path")
    offsets = evidence.get("offsets")
    if isinstance(offsets, list):
        for hit in offsets:
            if isinstance(hit, Mapping) and isinstance(hit.get("within"), str):
                _add(spans, hit["within"], hit.get("start"), hit.get("end"), "cited span")
    nearest = evidence.get("nearest")
    if isinstance(nearest, Mapping) and isinstance(nearest.get("within"), str):
        _add(spans, nearest["within"], nearest.get("start"), nearest.get("end"), "nearest match")
    if not isinstance(path, str):
        return
    found = evidence.get("found")
    if isinstance(found, list):
        label = "banned value" if "absent" in evidence else "value found"
        for hit in found:
            if isinstance(hit, Mapping):
                _add(spans, path, hit.get("start"), hit.get("end"), label)
    elif "start" in evidence:
        _add(spans, path, evidence.get("start"), evidence.get("end"), "match")
    elif isinstance(evidence.get("span"), str) and "grounded" in evidence:
        spans.append(Span(path, None, None, "span not found"))


def _add(spans: list[Span], field: str, start: Any, end: Any, label: str) -> None:
    first, last = _offset(start), _offset(end)
    if first is not None and last is not None and first <= last:
        spans.append(Span(field, first, last, label))


def segments(text: str, marks: list[tuple[int, int]], limit: int) -> list[Segment]:
    """``text`` split into plain and marked segments, cut to about ``limit`` characters.

    A text longer than ``limit`` is shown as a window of ``limit`` characters that
    starts a little before the first mark (or at the start), with notes saying how
    many characters were left out before and after it.
    """
    begin, stop = 0, len(text)
    if stop > limit:
        first = min((s for s, _ in marks), default=0)
        begin = max(0, min(first - limit // 4, stop - limit))
        stop = begin + limit
    merged: list[tuple[int, int]] = []
    for s, e in sorted((max(s, begin), min(e, stop)) for s, e in marks):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    out: list[Segment] = []
    if begin:
        out.append(("gap", f"… ({begin} characters before) "))
    at = begin
    for s, e in merged:
        if s > at:
            out.append(("text", text[at:s]))
        out.append(("mark", text[s:e]))
        at = e
    if stop > at:
        out.append(("text", text[at:stop]))
    if stop < len(text):
        out.append(("gap", f" … ({len(text) - stop} more characters)"))
    return out
