"""Gap rows and where they are kept: the row model, the hash chain, stores, the audit.

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
    "SqliteStore": "verifier.gaps.sqlite",
    "PostgresStore": "verifier.gaps.postgres",
    "AuditProblem": "verifier.gaps.audit",
    "AuditReport": "verifier.gaps.audit",
    "audit_store": "verifier.gaps.audit",
    "RowObserver": "verifier.gaps.audit",
    "HistoryAudit": "verifier.gaps.history",
    "audit_history": "verifier.gaps.history",
    "DriftChange": "verifier.gaps.drift",
    "JudgeDriftObserver": "verifier.gaps.drift",
    "ClaimTrend": "verifier.gaps.trends",
    "DegradationAlert": "verifier.gaps.trends",
    "PassRateObserver": "verifier.gaps.trends",
    "PassRateTrends": "verifier.gaps.trends",
    "degradation_alerts": "verifier.gaps.trends",
    "ExportSummary": "verifier.gaps.export",
    "export_jsonl": "verifier.gaps.export",
    "export_parquet": "verifier.gaps.export",
    "ExportRefused": "verifier.gaps.importer",
    "ImportSummary": "verifier.gaps.importer",
    "import_jsonl": "verifier.gaps.importer",
    "exported_form": "verifier.gaps._transfer_format",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier.gaps' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
