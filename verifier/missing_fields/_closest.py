"""The closest existing path to one that found nothing, from the keys cases had instead."""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Mapping
from typing import Any

from verifier.fieldpath import compile_path

__all__ = ["NearKeys"]

_MAX_KEYS = 1000
"""Distinct keys remembered per missing path: enough to find a near name, bounded."""


class NearKeys:
    """Remembers, per missing path, the keys found where it stopped in each case."""

    def __init__(self) -> None:
        # key -> (index of the first segment found nowhere, the keys there instead)
        self._keys: dict[Hashable, tuple[int, set[str]]] = {}

    def remember(self, key: Hashable, case: Mapping[str, Any], path: str) -> None:
        """Notes the keys ``case`` has where ``path`` (missing from it) stops."""
        depth, found = _keys_where_path_stops(case, path)
        known = self._keys.get(key)
        if known is None or depth > known[0]:
            self._keys[key] = (depth, set(list(found)[:_MAX_KEYS]))
        elif depth == known[0] and len(known[1]) < _MAX_KEYS:
            known[1].update(found)

    def closest(self, key: Hashable, path: str) -> str | None:
        """The existing path nearest ``path`` (one segment changed), or ``None``."""
        known = self._keys.get(key)
        if known is None:
            return None
        depth, keys = known
        parts = path.split(".")
        if depth >= len(parts):
            return None
        near = difflib.get_close_matches(parts[depth], sorted(keys), n=1, cutoff=0.6)
        if not near:
            return None
        return ".".join([*parts[:depth], near[0], *parts[depth + 1 :]])


def _keys_where_path_stops(case: Mapping[str, Any], path: str) -> tuple[int, set[str]]:
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
