"""Gap rows and where they are kept: the row model, the hash chain, seals and stores.

Import from here; the submodules' other names may change. Names load lazily, so
opening a store imports neither pydantic nor the schema validator.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "GapRow": "verifier.gaps.row",
    "gap_row_json_schema": "verifier.gaps.row",
    "missing_triple_parts": "verifier.gaps.row",
    "write_schema": "verifier.gaps.row",
    "GENESIS": "verifier.gaps.chain",
    "ChainError": "verifier.gaps.chain",
    "SealedRow": "verifier.gaps.chain",
    "seal": "verifier.gaps.chain",
    "verify_link": "verifier.gaps.chain",
    "GapStore": "verifier.gaps.store",
    "RunRecord": "verifier.gaps.store",
    "StoredContract": "verifier.gaps.store",
    "StoredRow": "verifier.gaps.store",
    "StoreError": "verifier.gaps.store",
    "open_store": "verifier.gaps.store",
    "SqliteStore": "verifier.gaps.sqlite.store",
    "PostgresStore": "verifier.gaps.postgres.store",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier.gaps' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
