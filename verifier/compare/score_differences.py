"""Paired score differences kept in the order they were paired, a byte or so each.

A comparison of two runs pairs one score difference per case and claim. The
differences of a run on one score grid take few distinct values (pass/fail scores:
-1, 0 and 1), so ``ScoreDifferences`` keeps each distinct difference once and, per
pair, the index of its value in an ``array`` one byte wide (two, then four, past 256
and 65,536 distinct values). Wilcoxon's test needs only how often each difference
occurs (``counts``), which is read from the indexes without building the sequence.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import overload

__all__ = ["ScoreDifferences", "difference_counts"]

_WIDER = {"B": ("H", 0xFF), "H": ("I", 0xFFFF)}
"""Each index width, the next one, and the largest index it holds."""


class ScoreDifferences(Sequence[Fraction]):
    """Score differences in the order added: the distinct values once, an index a pair."""

    __slots__ = ("_codes", "_index", "_keys", "_values")

    def __init__(self, differences: Iterable[Fraction] = ()) -> None:
        self._values: list[Fraction] = []
        self._index: dict[Fraction, int] = {}
        self._keys: dict[Hashable, int] = {}
        self._codes = array("B")
        for difference in differences:
            self.append(difference)

    def append(self, difference: Fraction) -> None:
        """Adds one pair's difference."""
        code = self._code(difference)  # first: it may widen ``_codes``
        self._codes.append(code)

    def append_keyed(self, key: Hashable, difference: Callable[[], Fraction]) -> None:
        """Adds the difference ``difference()`` makes, made only the first time ``key``
        (what it is made from: a pair of scores) is seen, since fractions hash slowly."""
        code = self._keys.get(key)
        if code is None:
            code = self._keys[key] = self._code(difference())
        self._codes.append(code)

    def _code(self, difference: Fraction) -> int:
        code = self._index.get(difference)
        if code is None:
            code = self._index[difference] = len(self._values)
            self._values.append(difference)
            wider = _WIDER.get(self._codes.typecode)
            if wider is not None and code > wider[1]:
                self._codes = array(wider[0], self._codes)
        return code

    def counts(self) -> dict[Fraction, int]:
        """How many pairs have each difference."""
        return {self._values[code]: n for code, n in Counter(self._codes).items()}

    def __len__(self) -> int:
        return len(self._codes)

    @overload
    def __getitem__(self, index: int) -> Fraction: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Fraction, ...]: ...

    def __getitem__(self, index: int | slice) -> Fraction | tuple[Fraction, ...]:
        if isinstance(index, slice):
            return tuple(self._values[code] for code in self._codes[index])
        return self._values[self._codes[index]]

    def __iter__(self) -> Iterator[Fraction]:
        values = self._values
        return (values[code] for code in self._codes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list is

    def __repr__(self) -> str:
        return f"ScoreDifferences({list(self)!r})"


def difference_counts(differences: Sequence[Fraction | int]) -> dict[Fraction, int]:
    """How many times each difference occurs, as exact fractions."""
    if isinstance(differences, ScoreDifferences):
        return differences.counts()
    return dict(Counter(Fraction(d) for d in differences))
