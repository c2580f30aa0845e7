"""A case's stored content, read back for showing: its fields, cut to size, spans marked.

A row names its case's content by ``content_sha256``; the store holds the envelope
``{"case": {...}, "withheld": {...}}`` under that hash (see ``verifier.gaps.content``).
What a policy redacted or cut at recording is listed in ``withheld`` and said beside
the field it concerns, so nobody takes a marker for what the system wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from verifier._internal.canonical import loads_exact
from verifier.fieldpath import compile_path
from verifier.gaps.store import GapStore
from verifier.report._claim_notes import ClaimNote
from verifier.report._spans import Segment, Span, deciding_spans, evidence_paths, segments

__all__ = [
    "NOT_RECORDED",
    "SHOWN_FIELDS",
    "CaseContent",
    "ContentReader",
    "FieldView",
    "field_views",
    "pretty_json",
    "result_fields",
]

NOT_RECORDED = "the run recorded no case text (record: content: none)"
"""The note of a case whose run kept no content by its record policy."""

SHOWN_FIELDS = ("input", "output")
"""Fields shown for every result, besides those its evidence points into."""


@dataclass(frozen=True, slots=True)
class CaseContent:
    """One case's content as recorded, or why there is none to show.

    Attributes:
        case: The case as its claims read it (redacted or cut fields as markers).
        withheld: Per concrete path, why and what was left out (``why``, ``sha256``,
            ``bytes``).
        note: Why no content is shown (``None`` when ``case`` is there).
    """

    case: dict[str, Any] | None
    withheld: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str | None = None


@dataclass(frozen=True, slots=True)
class FieldView:
    """One field of a case as shown.

    Attributes:
        path: Its concrete path in the case.
        segments: The text (JSON for other values), plain and marked, cut to size.
        chars: Characters of the whole text as recorded.
        labels: What the marked spans in it are (``match``, ``banned``, ...).
        withheld: What the recording left out of it, in words (``None``: nothing).
    """

    path: str
    segments: tuple[Segment, ...]
    chars: int
    labels: tuple[str, ...]
    withheld: str | None


class ContentReader:
    """Reads contents from a store, keeping the last one read.

    The rows of one case come one after another, so remembering one content reads
    each content once while holding no more than one in memory.
    """

    def __init__(self, store: GapStore, mode: str = "full") -> None:
        """Reads from ``store`` the contents of a run recorded under content ``mode``
        (``record_mode`` of its options): under ``none`` the note names the policy."""
        self._store = store
        self._mode = mode
        self._last: tuple[str | None, CaseContent] | None = None

    def read(self, sha256: str | None) -> CaseContent:
        """The content stored under ``sha256`` (a row's ``content_sha256``)."""
        if self._last is not None and self._last[0] == sha256:
            return self._last[1]
        content = self._load(sha256)
        self._last = (sha256, content)
        return content

    def _load(self, sha256: str | None) -> CaseContent:
        if not sha256:
            if self._mode == "none":
                return CaseContent(None, note=NOT_RECORDED)
            return CaseContent(None, note="no content was recorded for this case")
        text = self._store.content(sha256)
        if text is None:
            return CaseContent(
                None,
                note="the content is not in the store (recorded as its hash only, or purged)",
            )
        try:
            envelope = loads_exact(text)
        except orjson.JSONDecodeError:
            return CaseContent(None, note="the stored content is not JSON")
        case = envelope.get("case") if isinstance(envelope, dict) else None
        if not isinstance(case, dict):
            return CaseContent(None, note="the stored content holds no case")
        withheld = envelope.get("withheld")
        kept = (
            {str(k): v for k, v in withheld.items() if isinstance(v, dict)}
            if isinstance(withheld, dict)
            else {}
        )
        return CaseContent(case, kept)


def field_views(
    content: CaseContent, spans: Iterable[Span], limit: int, paths: Iterable[str] = SHOWN_FIELDS
) -> tuple[FieldView, ...]:
    """The fields ``paths`` (a ``*`` standing for the first few it finds) and those
    ``spans`` point into, each cut to ``limit`` chars.

    A field the case does not have is left out; so is everything when the content
    is not there (``content.note`` says why).
    """
    case = content.case
    if case is None:
        return ()
    spans = list(spans)
    wanted = list(dict.fromkeys(_concrete(case, [*paths, *(s.field for s in spans)])))
    views = []
    for path in wanted:
        value = _lookup(case, path)
        if value is _ABSENT:
            continue
        text = value if isinstance(value, str) else pretty_json(value)
        mine = [s for s in spans if s.field == path]
        marks = [
            (0, len(text)) if s.start is None or s.end is None else (s.start, s.end) for s in mine
        ]
        shown = segments(text, marks, limit)
        # Offsets are into the text the claim read; a policy may have kept less of it.
        shown.extend(
            ("gap", f" (the {s.label} at {s.start}-{s.end} lies past what was kept)")
            for s in mine
            if s.start is not None and s.start >= len(text)
        )
        views.append(
            FieldView(
                path,
                tuple(shown),
                len(text),
                tuple(dict.fromkeys(s.label for s in mine)),
                _withheld_note(content.withheld, path),
            )
        )
    return tuple(views)


def result_fields(
    content: CaseContent, evidence: Any, note: ClaimNote | None, limit: int
) -> tuple[FieldView, ...]:
    """The fields shown with one result, spans marked: the input and output, those its
    evidence names, and those its claim reads (a citation's ``within``, what a judge
    was shown: ``ClaimNote.reads``)."""
    paths = (*SHOWN_FIELDS, *evidence_paths(evidence), *(note.reads if note else ()))
    return field_views(content, deciding_spans(evidence), limit, paths)


_ABSENT = object()
_EXPANDED = 4
"""Fields a path with ``*`` stands for that are shown, at most."""


def _concrete(case: Mapping[str, Any], paths: Iterable[str]) -> Iterable[str]:
    """``paths``, each with ``*`` replaced by the first fields of ``case`` it finds."""
    for path in paths:
        if "*" not in path.split("."):
            yield path
            continue
        try:
            found = compile_path(path).find(case)
        except ValueError:
            continue
        yield from (where for where, _ in found[:_EXPANDED])


def _lookup(case: Mapping[str, Any], path: str) -> Any:
    node: Any = case
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _ABSENT
    return node


def _withheld_note(withheld: Mapping[str, Mapping[str, Any]], path: str) -> str | None:
    notes = []
    for where, info in withheld.items():
        if where != path and not where.startswith(path + "."):
            continue
        what = "redacted" if info.get("why") == "redacted" else "cut when recorded"
        size, digest = info.get("bytes"), info.get("sha256")
        detail = f"{size} bytes whole" if isinstance(size, int) else "size unknown"
        if isinstance(digest, str):
            detail += f", sha256 {digest[:12]}…"
        notes.append(f"{where} {what} ({detail})")
    return "; ".join(notes) or None


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON with sorted keys (``{}`` for what cannot be dumped)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return "{}"
