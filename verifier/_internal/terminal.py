"""Text from cases made safe to print on a terminal.

Case ids, reasons, excerpts, evidence and outputs come from models and users: an ESC
in them would start an escape sequence (colours, cursor moves, OSC 8 hyperlinks, a
changed window title), a carriage return or backspace would overwrite what was
printed, a BEL would ring. Every printer passes such text through :func:`printable`
(or :func:`printable_line`), which shows each of these characters as its Python
escape (``\\x1b``, ``\\r``, ``\\u202e``) instead: what is printed is what is stored,
visibly. Rich markup needs no escaping here: printers hand rich ``Text`` objects,
never markup strings.
"""

from __future__ import annotations

import re

__all__ = ["printable", "printable_line"]

# C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional
# overrides and isolates (which reorder what follows them on the line).
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[{_UNSAFE}]")
_CONTROL_OR_BREAK = re.compile(f"[{_UNSAFE}\t\n]")


def _escape(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """``text`` with every control character escaped except line breaks and tabs."""
    return _CONTROL.sub(_escape, text)


def printable_line(text: str) -> str:
    """``text`` as one line: line breaks and tabs are escaped too."""
    return _CONTROL_OR_BREAK.sub(_escape, text)
