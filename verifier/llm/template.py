"""The static and dynamic parts of a prompt template, split at one marker line.

Everything before the line ``<!-- dynamic -->`` is the same for every request: it goes
into the system prompt, where a provider can cache it. Everything after it is
rendered per request and sent as the user message. Judge templates and a prompt run
as the system under test split the same way; what may stand in each part is theirs
to check.
"""

from __future__ import annotations

from typing import Final

DYNAMIC_MARKER: Final = "<!-- dynamic -->"


def split_at_marker(text: str) -> tuple[str, str] | int:
    """The part before the one ``DYNAMIC_MARKER`` line (stripped) and the part after it
    (as written), or the number of marker lines when there is not exactly one. The
    marker is a line however it ends (an editor or git may write CRLF)."""
    lines = text.splitlines(keepends=True)
    marks = [i for i, line in enumerate(lines) if line.strip() == DYNAMIC_MARKER]
    if len(marks) != 1:
        return len(marks)
    i = marks[0]
    return "".join(lines[:i]).strip(), "".join(lines[i + 1 :])
