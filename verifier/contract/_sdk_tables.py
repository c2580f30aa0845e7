"""Tables the anthropic SDK ships (deprecated models, known model ids), read from its
source files as literals, without importing the SDK.

Importing ``anthropic`` costs seconds; ``verifier check`` (a pre-commit hook) lints
judge models against these two small tables and should not pay that. Each reader
returns ``None`` when the SDK is absent or its files are laid out differently, and
the caller then falls back to importing the table.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

__all__ = ["deprecated_models", "known_models"]


def _module(*parts: str) -> ast.Module | None:
    try:
        spec = importlib.util.find_spec("anthropic")  # finds the package, imports nothing
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    try:
        return ast.parse(Path(spec.origin).parent.joinpath(*parts).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None


def _assigned(tree: ast.Module, name: str) -> ast.expr | None:
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id == name:
                return node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                return node.value
    return None


def deprecated_models() -> dict[str, str] | None:
    """``DEPRECATED_MODELS`` of ``anthropic/_data/deprecated_models.py``."""
    tree = _module("_data", "deprecated_models.py")
    value = _assigned(tree, "DEPRECATED_MODELS") if tree is not None else None
    if value is None:
        return None
    try:
        table = ast.literal_eval(value)
    except ValueError:
        return None
    if isinstance(table, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in table.items()
    ):
        return table
    return None


def known_models() -> list[str] | None:
    """The model ids listed in ``Model`` of ``anthropic/types/model.py``."""
    tree = _module("types", "model.py")
    value = _assigned(tree, "Model") if tree is not None else None
    if value is None:
        return None
    found = [
        node.value
        for node in ast.walk(value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    return found or None
