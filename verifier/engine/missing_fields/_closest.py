"""The closest existing path to one that found nothing, from the keys cases had instead."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from verifier.fieldpath import nearest_path, where_path_stops

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
        depth, found = where_path_stops(case, path)
        known = self._keys.get(key)
        if known is None or depth > known[0]:
            self._keys[key] = (depth, set(list(found)[:_MAX_KEYS]))
        elif depth == known[0] and len(known[1]) < _MAX_KEYS:
            known[1].update(found)

    def closest(self, key: Hashable, path: str) -> str | None:
        """The existing path nearest ``path`` (one segment changed), or ``None``."""
        known = self._keys.get(key)
        return None if known is None else nearest_path(path, *known)
