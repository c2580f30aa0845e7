"""The directory a client's paths are resolved against, and the one-line tool error.

A client names files relative to the root; whatever it names, a ``..`` or a symbolic
link leading out of the root is refused, so the server reads nothing the user did not
put under it (ADR 0038).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from verifier._internal.file_lookup import is_file
from verifier.errors import VerifierError
from verifier.logs import redact_text

__all__ = ["Root", "ToolError"]

_SHOWN_CHARS = 80
"""The most of a client's path an error repeats: the client sent it, and a line of
thousands of characters says nothing more."""


class ToolError(VerifierError):
    """A call the tool cannot answer: reported to the client as one line (``isError``)."""


@dataclass(frozen=True)
class Root:
    """The root directory of the paths a client names.

    Attributes:
        path: The directory, absolute and with its links resolved.
    """

    path: Path

    @classmethod
    def of(cls, directory: Path) -> Root:
        """The root at ``directory`` (relative to the working directory).

        Raises:
            ToolError: ``directory`` is not a directory.
        """
        resolved = directory.resolve()
        if not resolved.is_dir():
            raise ToolError(f"{directory}: the root is not a directory")
        return cls(resolved)

    def file(self, name: str, *, what: str) -> Path:
        """The existing file ``name`` names under the root.

        Args:
            name: A path relative to the root (an absolute one must lie inside it).
            what: What the file is for, as the error says it (``contract``, ``cases``).

        Raises:
            ToolError: The path leaves the root, or names no file.
        """
        if not name or "\x00" in name:
            raise ToolError(f"{what}: give the path of a file under the root")
        shown = name if len(name) <= _SHOWN_CHARS else f"{name[:_SHOWN_CHARS]}..."
        try:
            path = (self.path / name).resolve()
        except (OSError, RuntimeError):  # a link loop, on some systems a name too long
            raise ToolError(f"{what} {shown!r}: no such file under the server's root") from None
        if not path.is_relative_to(self.path):
            raise ToolError(f"{what} {shown!r} is outside the server's root directory")
        # is_file, not Path.is_file: a name longer than the system allows raises there.
        if not is_file(path):
            raise ToolError(f"{what} {shown!r}: no such file under the server's root")
        return path

    def shown(self, path: Path | str) -> str:
        """``path`` as the client names it: relative to the root when inside it."""
        text = os.fspath(path)
        prefix = f"{self.path}{os.sep}"
        return text.removeprefix(prefix)

    def message(self, text: str) -> str:
        """A one-line error for the client: the first line of ``text``, with paths under
        the root relative to it and anything shaped like a credential masked."""
        lines = text.strip().splitlines() or ["failed"]
        first = lines[0].replace(f"{self.path}{os.sep}", "")
        more = len(lines) - 1
        if more:
            first += f" (and {more} more line{'s' if more != 1 else ''})"
        return redact_text(first)
