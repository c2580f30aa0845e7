"""Gap rows and where they are kept: the row model, the hash chain, seals and stores.

Import from here; the submodules' other names may change. Names load lazily, so
opening a store imports neither pydantic nor the schema validator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier._internal.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from verifier.gaps.chain import GENESIS as GENESIS
    from verifier.gaps.chain import ChainError as ChainError
    from verifier.gaps.chain import SealedRow as SealedRow
    from verifier.gaps.chain import seal as seal
    from verifier.gaps.chain import verify_link as verify_link
    from verifier.gaps.postgres.store import PostgresStore as PostgresStore
    from verifier.gaps.row import GapRow as GapRow
    from verifier.gaps.row import gap_row_json_schema as gap_row_json_schema
    from verifier.gaps.row import missing_triple_parts as missing_triple_parts
    from verifier.gaps.row import write_schema as write_schema
    from verifier.gaps.sqlite.store import SqliteStore as SqliteStore
    from verifier.gaps.store import GapStore as GapStore
    from verifier.gaps.store import RunRecord as RunRecord
    from verifier.gaps.store import StoredContract as StoredContract
    from verifier.gaps.store import StoredRow as StoredRow
    from verifier.gaps.store import StoreError as StoreError
    from verifier.gaps.store import open_store as open_store

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


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
