"""Dotted field paths with `*` wildcards, compiled once and resolved against a case.

A path such as ``fields.summary``, ``items.0.title`` or ``field_meta.*.source_span``
names values inside a case. Segments are separated by dots; a segment that is a
non-negative integer indexes a list; ``*`` stands for every key of a mapping or every
element of a list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

# fullmatch, not ``$``: ``$`` also matches before a trailing newline.
_SEGMENT = re.compile(r"\*|[^.*\s]+")


class _Missing:
    """Marks a path that does not resolve (distinct from a present ``None``)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


class FieldPathError(ValueError):
    """A field path that is not well formed."""


@dataclass(frozen=True, slots=True)
class FieldPath:
    """A compiled field path.

    Attributes:
        text: The path as written in the contract.
        parts: Its segments.
        has_wildcard: Whether any segment is ``*`` (the path may find many values).
    """

    text: str
    parts: tuple[str, ...]
    has_wildcard: bool

    def prefix(self, end: int) -> FieldPath:
        """The path of its first ``end`` segments (``output`` of ``output.total``)."""
        parts = self.parts[:end]
        return FieldPath(".".join(parts), parts, "*" in parts)

    def get(self, case: Any) -> Any:
        """Returns the single value at a path without wildcards, or ``MISSING``."""
        node = case
        for part in self.parts:
            # Cases are parsed JSON, so nearly every node is a plain dict: looking it up
            # directly skips the Mapping ABC check, the hot path's largest cost.
            node = node.get(part, MISSING) if type(node) is dict else _step(node, part)
            if node is MISSING:
                return MISSING
        return node

    def find(self, case: Any, gaps: list[str] | None = None) -> list[tuple[str, Any]]:
        """Returns every ``(concrete path, value)`` the path reaches, in document order.

        Args:
            gaps: Given, receives the concrete paths a ``*`` led to that go no further
                (``items.1.name`` when the second item has no ``name``), shallowest first.
        """
        if not self.has_wildcard:
            value = self.get(case)
            return [] if value is MISSING else [(self.text, value)]
        # Level by level rather than recursively: each level keeps the order of the one
        # before, so the result is in document order, and no trail list is rebuilt.
        level: list[tuple[str, Any]] = [("", case)]
        for depth, part in enumerate(self.parts):
            reached: list[tuple[str, Any]] = []
            sep = "." if depth else ""  # no separator before the first segment
            if part == "*":
                for prefix, node in level:
                    if isinstance(node, Mapping):
                        children: Any = node.items()
                    elif isinstance(node, list):
                        children = enumerate(node)
                    else:
                        continue
                    for key, child in children:
                        reached.append((f"{prefix}{sep}{key}", child))
            else:
                for prefix, node in level:
                    child = node.get(part, MISSING) if type(node) is dict else _step(node, part)
                    if child is not MISSING:
                        reached.append((f"{prefix}{sep}{part}", child))
                    elif gaps is not None and "*" in self.parts[:depth]:
                        gaps.append(f"{prefix}{sep}{part}")
            if not reached:
                return reached
            level = reached
        return level

    def getter(self) -> Callable[[Any], Any]:
        """Returns a function equivalent to ``get``, specialised for short paths.

        Rubric checks resolve the same path once per case, so one- and two-segment
        paths (``output``, ``fields.industry``) get a closure without the loop.
        """
        parts = self.parts
        if self.has_wildcard or len(parts) > 2:
            return self.get
        first = parts[0]
        if len(parts) == 1:

            def get_one(case: Any) -> Any:
                return case.get(first, MISSING) if type(case) is dict else _step(case, first)

            return get_one
        second = parts[1]

        def get_two(case: Any) -> Any:
            node = case.get(first, MISSING) if type(case) is dict else _step(case, first)
            if type(node) is dict:
                return node.get(second, MISSING)
            return MISSING if node is MISSING else _step(node, second)

        return get_two


def json_text_on(path: FieldPath, case: Any) -> str | None:
    """Where ``path`` runs into text that looks like JSON, when it finds nothing.

    A logged output is often a JSON string, and a path cannot read into text; the
    prefix returned (``output`` for ``output.total``) is what ``parse_json`` should name.
    ``None`` when no step of the path holds such text.
    """
    for end in range(1, len(path.parts)):
        prefix = path.prefix(end)
        if any(_looks_like_json(value) for _, value in prefix.find(case)):
            return prefix.text
    return None


def _looks_like_json(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    # Only the start: text cut short by a logger is still JSON text to be parsed (and
    # then named as broken), not prose.
    return value.lstrip()[:1] in ("{", "[")


def _step(node: Any, part: str) -> Any:
    if isinstance(node, Mapping):
        return node.get(part, MISSING)
    # isdigit() alone accepts digits int() rejects ("²"), so insist on ASCII.
    if isinstance(node, list) and part.isascii() and part.isdigit():
        index = int(part)
        return node[index] if index < len(node) else MISSING
    return MISSING


def compile_path(text: str) -> FieldPath:
    """Compiles a dotted path, raising ``FieldPathError`` when it is malformed."""
    if not isinstance(text, str) or not text:
        raise FieldPathError("a field path must be a non-empty string")
    parts = tuple(text.split("."))
    for part in parts:
        if not _SEGMENT.fullmatch(part):
            raise FieldPathError(
                f"invalid field path {text!r}: segment {part!r} must be a key, an index or '*'"
            )
    return FieldPath(text=text, parts=parts, has_wildcard="*" in parts)


def paths_overlap(a: str, b: str) -> bool:
    """Whether one path equals the other or lies inside it (``output`` covers ``output.name``).

    A ``*`` segment matches any single segment.
    """
    pa, pb = a.split("."), b.split(".")
    return all(x == y or x == "*" or y == "*" for x, y in zip(pa, pb, strict=False))


def where_path_stops(case: Mapping[str, Any], path: str) -> tuple[int, set[str]]:
    """The index of the first segment of ``path`` found nowhere in ``case``, and the
    keys that were there instead (those of the mappings its last found prefix reached)."""
    try:
        compiled = compile_path(path)
    except ValueError:
        return 0, set()
    nodes: list[Any] = [case]
    for depth in range(len(compiled.parts)):
        following = [value for _, value in compiled.prefix(depth + 1).find(case)]
        if not following:
            return depth, {str(k) for node in nodes if isinstance(node, Mapping) for k in node}
        nodes = following
    return len(compiled.parts), set()


def nearest_path(path: str, depth: int, keys: set[str]) -> str | None:
    """``path`` with its segment at ``depth`` replaced by the nearest of ``keys``
    (``where_path_stops`` gives both), or ``None`` when no key is near."""
    import difflib  # only when a path is missing: every run imports this module

    parts = path.split(".")
    if depth >= len(parts):
        return None
    near = difflib.get_close_matches(parts[depth], sorted(keys), n=1, cutoff=0.6)
    if not near:
        return None
    return ".".join([*parts[:depth], near[0], *parts[depth + 1 :]])


def closest_path(case: Mapping[str, Any], path: str) -> str | None:
    """The path nearest ``path`` that ``case`` has where ``path`` stops finding anything
    (``output.summry`` -> ``output.summary``), or ``None`` when no key is near."""
    return nearest_path(path, *where_path_stops(case, path))
