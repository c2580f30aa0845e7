"""Files that appear whole or not at all.

A report or comment body is written to a temporary file beside its target and
renamed over it only once complete: a run that stops half-way (a usage error found
late, an interrupt) leaves the previous file as it was, never an empty or partial one.
A target that is not a regular file (``/dev/stdout``, a named pipe, a device) is
written in place instead: renaming over it would replace the device or pipe itself.
Every failed write raises :class:`~verifier._internal.write_errors.OutputError` naming the
target, so a full disk is one line and exit 2 wherever a report is written.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, TypeVar

from verifier._internal.write_errors import OutputError

_T = TypeVar("_T")


def _mode_for(path: Path) -> int:
    """The mode the file gets: the one it has, or what the umask lets a new file have."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def special_file(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


class _NamedStream(io.TextIOWrapper):
    """A UTF-8 text stream whose failed writes name the file the user asked for."""

    def __init__(self, fd: int, path: Path, what: str) -> None:
        super().__init__(io.BufferedWriter(io.FileIO(fd, "w")), encoding="utf-8")
        self.path = path
        self.what = what

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError as exc:
            raise OutputError(self.path, exc, self.what) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise OutputError(self.path, exc, self.what) from None


class AtomicFile:
    """A text file being written to a temporary beside ``path``.

    Args:
        path: The file to write.
        what: What the file is, for error messages (``the report``).

    Raises:
        OutputError: The folder (or a special target) cannot be written.
    """

    def __init__(self, path: Path, what: str = "") -> None:
        self.path = path
        self.what = what
        self._temporary: Path | None = None
        folder = path.parent if str(path.parent) else Path(".")
        try:
            if special_file(path):
                handle = os.open(path, os.O_WRONLY | os.O_TRUNC)
            else:
                handle, temporary = tempfile.mkstemp(
                    prefix=f".{path.name}.", suffix=".tmp", dir=folder
                )
                self._temporary = Path(temporary)
        except OSError as exc:
            raise OutputError(path, exc, what) from None
        self.stream: IO[str] = _NamedStream(handle, path, what)

    def commit(self) -> None:
        """Renames the finished file over ``path``.

        Raises:
            OutputError: The file could not be finished (a full disk, say); ``path``
                keeps what it had.
        """
        try:
            self.stream.close()
            if self._temporary is not None:
                os.chmod(self._temporary, _mode_for(self.path))
                os.replace(self._temporary, self.path)
        except OSError as exc:
            self.discard()
            raise OutputError(self.path, exc, self.what) from None
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Drops what was written; ``path`` keeps what it had."""
        # What is still buffered cannot be written to a full disk either: drop it.
        with suppress(OSError, OutputError):
            self.stream.close()
        if self._temporary is not None:
            self._temporary.unlink(missing_ok=True)


def write_whole(path: Path, write: Callable[[IO[str]], _T], what: str = "") -> _T:
    """Calls ``write`` with the stream of an :class:`AtomicFile` at ``path``, then commits it.

    Raises:
        OutputError: ``path`` could not be written; it keeps what it had.
    """
    target = AtomicFile(path, what)
    try:
        result = write(target.stream)
    except BaseException:
        target.discard()
        raise
    target.commit()
    return result
