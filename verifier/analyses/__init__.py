"""What a store's rows say: the audit, judge drift, pass-rate trends, history and browsing.

Import from here; the submodules' other names may change. Names load lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier._internal.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from verifier.analyses.audit import AuditProblem as AuditProblem
    from verifier.analyses.audit import AuditReport as AuditReport
    from verifier.analyses.audit import RowObserver as RowObserver
    from verifier.analyses.audit import audit_store as audit_store
    from verifier.analyses.drift import DriftChange as DriftChange
    from verifier.analyses.drift import JudgeDriftObserver as JudgeDriftObserver
    from verifier.analyses.history import HistoryAudit as HistoryAudit
    from verifier.analyses.history import audit_history as audit_history
    from verifier.analyses.trends import ClaimTrend as ClaimTrend
    from verifier.analyses.trends import DegradationAlert as DegradationAlert
    from verifier.analyses.trends import PassRateObserver as PassRateObserver
    from verifier.analyses.trends import PassRateTrends as PassRateTrends
    from verifier.analyses.trends import degradation_alerts as degradation_alerts

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


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
