"""Markdown pieces every writer of Markdown shares (reports, audits, comparisons)."""

from __future__ import annotations

import re

_BACKTICK_RUN = re.compile(r"`+")


def code_span(text: str) -> str:
    """Returns ``text`` as an inline code span on one line, whatever backticks it holds."""
    flat = " ".join(text.split())
    if not flat:
        return "*(empty)*"
    longest = max((len(m) for m in _BACKTICK_RUN.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    # A space on each side keeps a leading or trailing backtick off the fence.
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
