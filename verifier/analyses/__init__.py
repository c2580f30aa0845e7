"""What a store's rows say: the audit, judge drift, pass-rate trends, history and browsing.

Import from here; the submodules' other names may change. Names load lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AuditProblem": "verifier.analyses.audit",
    "AuditReport": "verifier.analyses.audit",
    "audit_store": "verifier.analyses.audit",
    "RowObserver": "verifier.analyses.audit",
    "HistoryAudit": "verifier.analyses.history",
    "audit_history": "verifier.analyses.history",
    "DriftChange": "verifier.analyses.drift",
    "JudgeDriftObserver": "verifier.analyses.drift",
    "ClaimTrend": "verifier.analyses.trends",
    "DegradationAlert": "verifier.analyses.trends",
    "PassRateObserver": "verifier.analyses.trends",
    "PassRateTrends": "verifier.analyses.trends",
    "degradation_alerts": "verifier.analyses.trends",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verifier.analyses' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
