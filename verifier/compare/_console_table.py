"""The console table of a run comparison, laid out for the width it is printed in.

rich is imported only when a table is built (the compare command's JSON and Markdown
need none of it).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

__all__ = ["UNBOUNDED", "claims_table", "console_width"]

_MAIN_COLUMNS: tuple[tuple[str, Literal["left", "right"]], ...] = (
    ("claim", "left"),
    ("pairs", "right"),
    ("baseline", "right"),
    ("candidate", "right"),
    ("difference [95% CI]", "right"),
    ("p (Holm)", "right"),
    ("verdict", "left"),
    ("power", "right"),
    ("cases needed", "right"),
)
"""The columns of a claim's row, in order, and how each is aligned."""
_FILE_WIDTH = 160
"""The width written to a file or pipe when ``COLUMNS`` does not say one."""
UNBOUNDED = 10_000
"""A width no table reaches: to measure what the full table needs."""


def console_width(out: IO[str]) -> int | None:
    """The width to lay the tables out in: the terminal's (``None``: rich measures it,
    honouring ``COLUMNS``), else ``COLUMNS`` when set, else room for the full table."""
    if out.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else _FILE_WIDTH


def claims_table(
    title: str,
    rows: Sequence[tuple[RenderableType, ...]],
    sections: int,
    chosen: tuple[int, ...] = (),
    compact: dict[str, Any] | None = None,
) -> Table:
    """The ``chosen`` columns of ``_MAIN_COLUMNS`` (all without a choice); ``compact``
    is the narrow layout, where only the difference and the verdict wrap (rich narrows
    the widest wrapping columns first, and a claim's name stays whole)."""
    from rich.table import Table

    table = Table(title=title, title_justify="left", **(compact or {}))
    for index, (name, justify) in enumerate(_MAIN_COLUMNS):
        if not chosen or index in chosen:
            wraps = index in (4, 6) if compact else index == 0
            table.add_column(name, justify=justify, no_wrap=not wraps, overflow="fold")
    for i, row in enumerate(rows):
        table.add_row(
            *(cell for index, cell in enumerate(row) if not chosen or index in chosen),
            end_section=i == sections - 1,
        )
    return table
