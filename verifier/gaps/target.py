"""Which store a command or a library caller means when it names none.

Kept apart from ``verifier.gaps.store`` (which loads the row chain and its hashing) so
the command line can show the default in its help without loading any of that.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from verifier.errors import VerifierError

DEFAULT_STORE: Final = ".verifier/gaps.db"
"""Where gap rows go when neither the caller nor ``VERIFIER_STORE`` names a store."""


class StoreFolderMissing(VerifierError):
    """A store file named in a folder that does not exist (a mistyped path)."""


def store_target(store: str | os.PathLike[str] | None) -> str:
    """The store named by ``store``, else by ``$VERIFIER_STORE``, else the default."""
    named = os.fspath(store) if store is not None else ""
    return named or os.environ.get("VERIFIER_STORE") or DEFAULT_STORE


def new_store_target(store: str | os.PathLike[str] | None) -> str:
    """``store_target`` for a command that writes: a SQLite file must be named in a
    folder that exists, so a mistyped ``--store /typo/dir/x.db`` is refused rather than
    made. Only the default store's own folder (``.verifier``) is created for it.

    Raises:
        StoreFolderMissing: The folder of the named SQLite file does not exist.
    """
    target = store_target(store)
    if "://" in target and not target.startswith("sqlite:///"):
        return target  # a database server's URL
    file = Path(target.removeprefix("sqlite:///"))
    if file != Path(DEFAULT_STORE) and not file.parent.is_dir():
        raise StoreFolderMissing(
            f"{target}: the store's folder {file.parent} does not exist "
            "(create it, or pick another --store)"
        )
    return target


def sqlite_path(target: str) -> str | None:
    """The file of a SQLite store target (a path or ``sqlite:///...``), else ``None``."""
    if "://" not in target:
        return target
    if target.startswith("sqlite:///"):
        return target.removeprefix("sqlite:///")
    return None
