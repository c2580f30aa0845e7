"""Optional extras: whether one is installed, and the one line that says to install it.

A core install (``pip install verifier-llm``) holds what a check, a run, an audit and a
report need. Packages only some features use are in extras, imported where the feature
runs. Those imports go through :func:`needs_extra`, so a missing package is one line
naming the extra (a ``MissingExtraError``, which the command line prints and exits 2
with), never an ``ImportError`` traceback.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final, Literal

from verifier.errors import MissingExtraError

__all__ = [
    "EXTRA_MODULES",
    "Extra",
    "extra_installed",
    "install_command",
    "install_line",
    "needs_extra",
]

Extra = Literal["stats"]

EXTRA_MODULES: Final[dict[Extra, tuple[str, ...]]] = {
    # The numeric stack: Spearman's and Pearson's correlations, Krippendorff's alpha and
    # the exact power of McNemar's test (the power search). About 200 MB installed.
    "stats": ("numpy", "scipy", "krippendorff"),
}
"""The top-level modules each extra provides."""


def install_command(extra: Extra) -> str:
    """The command that installs ``extra``."""
    return f"pip install 'verifier-llm[{extra}]'"


def install_line(extra: Extra, feature: str) -> str:
    """The one line that says ``feature`` needs ``extra`` and how to install it."""
    return f"{feature} needs the {extra} extra: {install_command(extra)}"


def extra_installed(extra: Extra) -> bool:
    """Whether every module of ``extra`` can be imported, found without importing it."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in EXTRA_MODULES[extra])
    except (ImportError, ValueError):
        return False


@contextmanager
def needs_extra(extra: Extra, feature: str) -> Iterator[None]:
    """Imports in the block come from ``extra``; a module of it missing is one line.

    Example::

        with needs_extra("stats", "Pearson's correlation"):
            from scipy import stats

    Raises:
        MissingExtraError: A module of ``extra`` is not installed (another module's
            absence is left as the ``ImportError`` it is).
    """
    try:
        yield
    except ImportError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in EXTRA_MODULES[extra]:
            raise
        raise MissingExtraError(install_line(extra, feature)) from exc
