"""Cases read from what a system logs: each log line mapped to a case by field paths.

A production log line is an object of the system's own shape (``{"trace_id": ...,
"request": {"messages": [...]}, "response": {"text": ...}}``). A mapping names, for
each case field, the dotted path of the log line that holds it; the case is made of
those fields alone, so nothing else the line holds (headers, user data the claims do
not read) reaches a row. A path is dotted like a claim's field, with one addition a
log needs: a negative index counts from a list's end (``request.messages.-1.content``,
the last message).

A mapping without ``id`` derives each case's id from the line: ``log-`` and the first
16 hex digits of the sha256 of the mapped ``input`` (every mapped field when the map
has no ``input``) as canonical JSON. The same line read again, from a file or posted to
the HTTP API, gets the same id, and so does the same input logged by another version
of the system, so runs over two logs pair case by case; a line repeating an input
already read in the same run takes ``~2``, ``~3``... after it (``log-...~2``).

A mapping may also name the line's time and a cutoff: a line logged before it is
passed over (not a case, not a row), so a weekly run checks the last week's lines.
A line a path finds nothing in, or whose time cannot be read, is an unusable line
saying so, with the closest path the line has.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verifier._internal.canonical import canonical_json, normalise_numbers, sha256_hex
from verifier._internal.json_words import json_kind
from verifier.fieldpath import closest_path

__all__ = ["DERIVED_ID_PREFIX", "CaseMapping", "MappedLine", "derived_id", "parse_since", "resolve"]

DERIVED_ID_PREFIX = "log-"
"""How a derived case id starts (``derived_id``)."""

_MISSING: Any = object()
_DURATION = re.compile(r"(?P<count>[1-9][0-9]{0,5})(?P<unit>[hdw])")
_INDEX = re.compile(r"-?[0-9]+")
_UNITS = {"h": dt.timedelta(hours=1), "d": dt.timedelta(days=1), "w": dt.timedelta(weeks=1)}


class MappedLine:
    """Why a log line is not a case (``problem``) or that it is too old (``old``)."""

    def __init__(
        self, problem: str | None = None, *, old: bool = False, case_id: Any = None
    ) -> None:
        self.problem = problem
        self.old = old
        self.case_id = case_id
        """The id the line maps to when it has one (its error rows carry it)."""


@dataclass(frozen=True)
class CaseMapping:
    """How a log line becomes a case.

    Attributes:
        fields: Each case field and the dotted path of the log line holding it (``id``
            among them).
        time: The path of the line's time (ISO 8601, or seconds since 1970), if any.
        since: Lines logged before this (timezone-aware) are passed over; ``None``: none.
        format: What the cases file holds: log lines (``jsonl``, a suite document too),
            or OpenTelemetry spans as OTLP JSON (``otlp``: each GenAI span is a line,
            ``verifier._internal.otlp_spans``).
    """

    fields: Mapping[str, str]
    time: str | None = None
    since: dt.datetime | None = None
    format: str = "jsonl"

    @property
    def derives_ids(self) -> bool:
        """Whether case ids are derived from the lines (the map names no ``id``)."""
        return "id" not in self.fields

    def record(self) -> dict[str, Any]:
        """What a run records of the mapping it read its cases with."""
        since = None if self.since is None else self.since.isoformat()
        record = {"map": dict(self.fields), "time": self.time, "since": since}
        return record if self.format == "jsonl" else {**record, "format": self.format}

    def case_of(self, line: Any, where: str) -> dict[str, Any] | MappedLine:
        """The case ``line`` maps to, or why it is none (``where``: ``line 3``)."""
        if not isinstance(line, dict):
            return MappedLine(f"{where}: a log line must be a JSON object, not {json_kind(line)}")
        if self.since is not None and self.time is not None:
            when = _time_of(line, self.time, where)
            if isinstance(when, MappedLine):
                when.case_id = self._id(line)
                return when
            if when < self.since:
                return MappedLine(old=True)
        case: dict[str, Any] = {}
        for name, path in self.fields.items():
            value = resolve(line, path)
            if value is _MISSING:
                problem = _not_found(line, where, f"map.{name}", path)
                return MappedLine(problem, case_id=self._id(line))
            case[name] = value
        if self.derives_ids:
            case["id"] = derived_id(case)
        return case

    def _id(self, line: dict[str, Any]) -> Any:
        return resolve(line, self.fields["id"]) if "id" in self.fields else None


def derived_id(case: Mapping[str, Any]) -> str:
    """The id of a mapped case whose line has none: ``log-`` and 16 hex digits of the
    sha256 of its ``input`` (all its fields without one) as canonical JSON."""
    basis = case["input"] if "input" in case else dict(case)
    return DERIVED_ID_PREFIX + sha256_hex(canonical_json(normalise_numbers(basis)))[:16]


def resolve(line: Any, path: str) -> Any:
    """The value at a dotted ``path`` of ``line`` (a negative index counts from a list's
    end), or a sentinel that is no JSON value when the path finds nothing."""
    node = line
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part, _MISSING)
        elif isinstance(node, list) and _INDEX.fullmatch(part):
            index = int(part)
            node = node[index] if -len(node) <= index < len(node) else _MISSING
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def _not_found(line: dict[str, Any], where: str, key: str, path: str) -> str:
    near = closest_path(line, _from_start(line, path))
    closest = f" (closest: {near})" if near and near != path else ""
    return f"{where}: {key}: path {path} matched nothing in the log line{closest}"


def _from_start(line: Any, path: str) -> str:
    """``path`` with its negative indexes counted from the start, as far as it goes,
    so the closest path is looked for where this line's lists end."""
    parts, node = path.split("."), line
    for i, part in enumerate(parts):
        if (
            isinstance(node, list)
            and part.startswith("-")
            and _INDEX.fullmatch(part)
            and -int(part) <= len(node)
        ):
            parts[i] = str(len(node) + int(part))
        node = resolve(node, parts[i]) if node is not _MISSING else _MISSING
    return ".".join(parts)


def _time_of(line: dict[str, Any], path: str, where: str) -> dt.datetime | MappedLine:
    value = resolve(line, path)
    if value is _MISSING:
        return MappedLine(_not_found(line, where, "time", path))
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return dt.datetime.fromtimestamp(value, dt.UTC)
        if isinstance(value, str):
            return _aware(dt.datetime.fromisoformat(value))
    except (ValueError, OverflowError, OSError):
        pass
    shown = value if isinstance(value, str) else json_kind(value)
    return MappedLine(
        f"{where}: time: {path} holds {shown!r}, not an ISO 8601 time or seconds since 1970"
    )


def _aware(when: dt.datetime) -> dt.datetime:
    """A time without a zone is taken as UTC, as logs written by servers usually are."""
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


def parse_since(text: str, now: dt.datetime) -> dt.datetime:
    """The cutoff ``text`` names: a window back from ``now`` (``12h``, ``7d``, ``4w``),
    or an ISO 8601 date or time (``2026-11-01``; UTC when no zone is given).

    Raises:
        ValueError: ``text`` is neither.
    """
    window = _DURATION.fullmatch(text.strip())
    if window is not None:
        return now - int(window["count"]) * _UNITS[window["unit"]]
    try:
        return _aware(dt.datetime.fromisoformat(text.strip()))
    except ValueError:
        raise ValueError(
            f"since {text!r} is neither a window (12h, 7d, 4w) nor an ISO 8601 date "
            "(2026-11-01) or time"
        ) from None
