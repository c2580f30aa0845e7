"""A Python without the ``stats`` extra, for tests: numpy, scipy and krippendorff cannot
be imported once :func:`block` has run, as in a core ``pip install verifier-llm``.

``python -m tests._without_stats ARGS`` runs ``verifier ARGS`` so; a probe script calls
:func:`block` first.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

from verifier._internal.extras import EXTRA_MODULES

BLOCKED = frozenset(EXTRA_MODULES["stats"])


class _Absent(importlib.abc.MetaPathFinder):
    """Finds the blocked modules nowhere, before any other finder is asked."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def block() -> None:
    """From now on, importing a module of the ``stats`` extra fails as if not installed."""
    loaded = [name for name in sys.modules if name.partition(".")[0] in BLOCKED]
    if loaded:
        raise RuntimeError(f"already imported: {', '.join(sorted(loaded))}")
    sys.meta_path.insert(0, _Absent())


if __name__ == "__main__":
    block()
    from verifier.cli import main

    main(sys.argv[1:])
