"""What a failed write means, said in one line that names the file.

Every file verifier writes for a user (reports, comment bodies, exports, the step
summary, the store) reports a failed write through :func:`os_problem`, so a full disk
reads as a full disk wherever it happens, and as an error of verifier (exit 2), never
as a failed case.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from verifier.errors import VerifierError

__all__ = ["DISK_FULL", "OutputError", "full_disk", "no_room", "os_problem"]

DISK_FULL = "no space left: the disk is full"

_PROBLEMS = {
    errno.ENOSPC: DISK_FULL,
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "the file size limit is reached (the file is too large)",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def os_problem(exc: OSError) -> str:
    """The problem an operating-system error stands for, without any file name."""
    known = _PROBLEMS.get(exc.errno) if exc.errno is not None else None
    if known is not None:
        return known
    return (str(exc.strerror or exc).splitlines() or ["I/O error"])[0]


class OutputError(VerifierError):
    """A file verifier writes for the user could not be written.

    Args:
        path: The file as the user named it.
        exc: The operating system's error.
        what: What the file is for the user (``the report``), if it helps to say.
    """

    def __init__(self, path: Path | str, exc: OSError, what: str = "") -> None:
        self.path = path
        self.errno = exc.errno
        super().__init__(f"{path}: cannot write{' ' + what if what else ''}: {os_problem(exc)}")


def full_disk(path: Path) -> str | None:
    """Whether writes to ``path`` fail for want of room: the problem, or ``None``.

    SQLite and other libraries report a failed write with their own words ("disk I/O
    error") and lose the operating system's reason: this looks for it, the process's
    file size limit reached by the file (or its journal) or no space left beside it.
    """
    import resource

    limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit != resource.RLIM_INFINITY:
        for suffix in ("", "-wal", "-journal"):
            try:
                size = Path(f"{path}{suffix}").stat().st_size
            except OSError:
                continue
            # A page or a WAL frame that does not fit: the file is near the limit.
            if size + _ROOM >= limit:
                return f"the file size limit ({limit} bytes) is reached"
    try:
        folder = os.statvfs(path.parent if str(path.parent) else ".")
    except OSError:
        return None
    if folder.f_bavail * folder.f_frsize < _ROOM:
        return DISK_FULL
    return None


def no_room(path: Path) -> str:
    """Why a write beside ``path`` failed for want of room, when the library that wrote
    (SQLite) says only that some disk is full.

    SQLite keeps temporary files (statement journals, sorts) in ``SQLITE_TMPDIR`` or
    ``TMPDIR``, not beside the database: when the database's own disk has room, the
    temporary directory is what filled up (its files are gone by the time this runs,
    so its free space proves nothing either way).
    """
    found = full_disk(path)
    if found is not None:
        return found
    folder = os.environ.get("SQLITE_TMPDIR") or tempfile.gettempdir()
    return (
        f"no space left in the temporary directory {folder} (TMPDIR), where SQLite keeps "
        f"its temporary files; {path.parent if str(path.parent) else '.'} has room"
    )


_ROOM = 1 << 16
"""Bytes a write may need: less room than this left is a full disk (or limit)."""
