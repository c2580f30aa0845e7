"""A package's public names imported on first use (PEP 562), so importing it is cheap.

A lazy package lists its names in ``_EXPORTS`` (name -> defining module) and imports
the same names under ``TYPE_CHECKING`` for type checkers; it installs the two module
functions made here outside ``TYPE_CHECKING``, so a checker reports a name the
package does not export instead of typing it ``Any``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package exporting ``exports`` lazily.

    Args:
        package: The package's dotted name, for the error of an unknown name.
        exports: Each exported name and the module that defines it.
        public: The package's ``__all__``, what ``dir()`` lists.
    """

    def module_getattr(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def module_dir() -> list[str]:
        return public

    return module_getattr, module_dir
