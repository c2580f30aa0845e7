"""A read-only mapping whose values are made when first looked up."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

V = TypeVar("V")


class LazyMapping(Mapping[str, V]):
    """``keys`` in their order, each value made by ``make(key)`` on its first lookup and
    kept. Membership, iteration and length never make a value."""

    def __init__(self, keys: Iterable[str], make: Callable[[str], V]) -> None:
        self._keys = tuple(keys)
        self._known = frozenset(self._keys)
        self._make = make
        self._made: dict[str, V] = {}

    def __getitem__(self, key: str) -> V:
        try:
            return self._made[key]
        except KeyError:
            if key not in self._known:
                raise
        # Two threads may both make it; the first one kept is the one every caller gets.
        return self._made.setdefault(key, self._make(key))

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)
