"""Looking a file up by a name that came from outside (a contract, a request)."""

from __future__ import annotations

from pathlib import Path


def is_file(path: Path) -> bool:
    """Whether ``path`` names a regular file; a name the system cannot look up names none.

    ``Path.is_file`` answers ``False`` only for a missing file: a component longer than
    the file system allows (ENAMETOOLONG), a directory it may not search (EACCES) or a
    NUL byte raise instead, and a name written in a contract or sent to the API would
    turn into a traceback or a 500.
    """
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False
