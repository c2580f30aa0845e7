"""Tables the anthropic SDK ships (deprecated models, known model ids), read from its
source files as literals, without importing the SDK.

Importing ``anthropic`` costs seconds; ``verifier check`` (a pre-commit hook) lints
judge models against these two small tables and should not pay that. Each reader
returns ``None`` when the SDK is absent or its files are laid out differently, and
``retirement_dates`` and ``dated_snapshot`` (the anthropic provider's entry in the
registry) then fall back to importing the table.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

__all__ = [
    "dated_snapshot",
    "deprecated_models",
    "known_models",
    "retirement_dates",
    "undated_snapshot",
]


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


def retirement_dates() -> dict[str, str]:
    """Model id -> retirement date text, from the table the anthropic SDK ships."""
    table = deprecated_models()
    if table is not None:
        return table
    try:
        from anthropic._data import DEPRECATED_MODELS
    except ImportError:  # no SDK, or one without the table: nothing to warn about
        return {}
    return dict(DEPRECATED_MODELS)


def _model_ids() -> list[str]:
    known = known_models()
    if known is None:
        try:
            import typing

            from anthropic.types.model import Model
        except ImportError:
            return []
        known = []
        for arg in typing.get_args(Model):
            known.extend(a for a in typing.get_args(arg) if isinstance(a, str))
    return known


def dated_snapshot(model: str) -> str | None:
    """The dated snapshot an undated anthropic model id moves with, or ``None``."""
    # The SDK's model list pairs aliases with dated snapshots (x and x-YYYYMMDD); an
    # undated id with such a sibling is an alias. Undated ids without one are pinned.
    for candidate in _model_ids():
        stem, _, date = candidate.rpartition("-")
        if stem == model and len(date) == 8 and date.isdigit():
            return candidate
    return None


def undated_snapshot(model: str) -> bool:
    """Whether ``model`` is an undated id the SDK lists with no dated sibling: newer
    Claude models have only such ids, and each names one fixed snapshot."""
    return model in _model_ids() and dated_snapshot(model) is None
