"""The fenced code blocks of the documentation, with the notes written just before them.

A note is an HTML comment on the line just before a fence (the site does not show it,
and it works whatever the block's language):

- ``<!-- illustrative: REASON -->``: the block is shown, not run or checked (it needs
  a key, the network, GitHub or a server, or it is a synopsis); REASON says why.
- ``<!-- file: PATH -->``: the block is a file the page's later blocks use; it is
  written to PATH (relative to the folder they run in) before they are checked.
- ``<!-- checked by: TEST -->``: the block is run by the test module TEST (a path from
  the repository's root), which needs a project set up for it (a PostgreSQL store, a
  locked gate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

FENCE = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```[ \t]*$", re.S | re.M)
NOTE = re.compile(r"^ *<!-- (illustrative|file|checked by): (.+?) -->[ \t]*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its language, its text (unindented), its note."""

    page: str
    line: int
    lang: str
    body: str
    illustrative: str | None = None
    file: str | None = None
    checked_by: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _note(text: str, start: int) -> dict[str, str]:
    """The note just before the fence at ``start``, as the ``Block`` field it sets."""
    before = text[:start].rstrip("\n").rsplit("\n", 1)[-1]
    found = NOTE.match(before)
    if found is None:
        return {}
    return {found.group(1).replace(" ", "_"): found.group(2)}


def page_blocks(path: Path) -> list[Block]:
    """Every fenced block of one Markdown page, in order."""
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    for found in FENCE.finditer(text):
        indent, lang, body = found.groups()
        blocks.append(
            Block(
                page=page,
                line=text.count("\n", 0, found.start()) + 1,
                lang=lang,
                body="\n".join(line[len(indent) :] for line in body.splitlines()) + "\n",
                **_note(text, found.start()),
            )
        )
    return blocks
