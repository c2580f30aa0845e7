"""A temporary file of items, for reports that can be written only once totals are known."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import IO, Generic, TypeVar

__all__ = ["Spool"]

T = TypeVar("T")


class Spool(Generic[T]):
    """Append-only spool of picklable items on disk, read back in order.

    Pickle is the fastest way to round-trip plain tuples and strings; the file is
    private to this process and deleted on close, so nothing untrusted is ever
    unpickled. Keep items to builtins: pickling dataclasses is several times slower.
    """

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (open until close)
        self.count = 0

    def append(self, item: T) -> None:
        """Writes one item to the end of the spool."""
        self._file.write(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL))
        self.count += 1

    def __iter__(self) -> Iterator[T]:
        """Yields the items from the first; one item in memory at a time."""
        self._file.flush()
        self._file.seek(0)
        for _ in range(self.count):
            item: T = pickle.load(self._file)
            yield item
        self._file.seek(0, 2)

    def close(self) -> None:
        """Deletes the spool file."""
        self._file.close()
