"""Which store a command or a library caller means when it names none.

Kept apart from ``verifier.gaps.store`` (which loads the row chain and its hashing) so
the command line can show the default in its help without loading any of that.
"""

from __future__ import annotations

import os
from typing import Final

DEFAULT_STORE: Final = ".verifier/gaps.db"
"""Where gap rows go when neither the caller nor ``VERIFIER_STORE`` names a store."""


def store_target(store: str | os.PathLike[str] | None) -> str:
    """The store named by ``store``, else by ``$VERIFIER_STORE``, else the default."""
    named = os.fspath(store) if store is not None else ""
    return named or os.environ.get("VERIFIER_STORE") or DEFAULT_STORE
