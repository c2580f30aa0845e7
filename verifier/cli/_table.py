"""Plain aligned columns, as ``verifier runs`` and ``verifier judges`` print them."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["aligned", "to_second"]


def aligned(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """``headers`` then ``rows``, one line each, columns two spaces apart and padded to
    their widest cell (trailing spaces dropped). Cells are printed as given: make any
    stored text safe to print first."""
    lines = [tuple(headers), *(tuple(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        + "\n"
        for line in lines
    )


def to_second(started_at: str) -> str:
    """A stored time to the second (the store keeps microseconds)."""
    head, dot, rest = started_at.partition(".")
    return f"{head}Z" if dot and rest.endswith("Z") else started_at
