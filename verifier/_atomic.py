"""Files that appear whole or not at all.

A report or comment body is written to a temporary file beside its target and
renamed over it only once complete: a run that stops half-way (a usage error found
late, an interrupt) leaves the previous file as it was, never an empty or partial one.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import IO


def _mode_for(path: Path) -> int:
    """The mode the file gets: the one it has, or what the umask lets a new file have."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class AtomicFile:
    """A text file being written to a temporary beside ``path``.

    Raises:
        OSError: The folder cannot be written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        folder = path.parent if str(path.parent) else Path(".")
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        self._temporary = Path(temporary)
        self.stream: IO[str] = os.fdopen(handle, "w", encoding="utf-8")

    def commit(self) -> None:
        """Renames the finished file over ``path``."""
        try:
            self.stream.close()
            os.chmod(self._temporary, _mode_for(self.path))
            os.replace(self._temporary, self.path)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Drops what was written; ``path`` keeps what it had."""
        self.stream.close()
        self._temporary.unlink(missing_ok=True)
