"""Moving rows out of and into a store: export (JSONL, Parquet), import and purge.

Import from here; the submodules' other names may change. Names load lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ExportSummary": "verifier.transfer.export",
    "export_jsonl": "verifier.transfer.export",
    "export_parquet": "verifier.transfer.export",
    "ExportRefused": "verifier.transfer.importer",
    "ImportSummary": "verifier.transfer.importer",
    "import_jsonl": "verifier.transfer.importer",
    "exported_form": "verifier.transfer._format",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier.transfer' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
