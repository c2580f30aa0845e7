"""``with thing:`` for objects that hold a connection and have a ``close``."""

from __future__ import annotations

from typing import Self


class Closing:
    """Makes ``with obj:`` call ``obj.close()`` at the end, whatever happened."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
