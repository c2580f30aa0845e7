"""What makes a degradation alert the same alert, and which ones a destination has had.

An alert's identity is the SHA-256 of the canonical JSON of its kind, contract,
claim, the run whose pass rate dropped and the window's runs it was compared with
(``prior_runs``, in order). A stored run never changes, so the same alert computed
again by a later audit has the same identity, whatever the time of the audit; the
rates, the spread and the successions its window spans follow from those runs and
are left out. An audit over another window (``--window 10`` after ``--window 4w``)
compares the run with other runs: that is another alert, posted on its own.

A destination is known by the SHA-256 of its URL: a webhook URL carries its secret
(a Slack incoming webhook's path is one), so only the hash and the URL masked are
stored (``verifier.gaps.alert_deliveries``).
"""

from __future__ import annotations

from typing import Any

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.analyses.trends import DegradationAlert

__all__ = ["alert_document", "alert_id", "alert_identity", "destination_sha256"]


def alert_identity(alert: DegradationAlert) -> dict[str, Any]:
    """The parts that make ``alert`` the same alert (no case content)."""
    return {
        "kind": "degradation",
        "contract_id": alert.contract_id,
        "claim_id": alert.claim_id,
        "run_id": alert.run_id,
        "prior_runs": list(alert.prior_runs),
    }


def alert_id(alert: DegradationAlert) -> str:
    """The SHA-256 of the canonical JSON of ``alert_identity``."""
    return sha256_hex(canonical_json(alert_identity(alert)))


def destination_sha256(url: str) -> str:
    """The SHA-256 of a destination URL, as the alerts sent keep it."""
    return sha256_hex(url)


def alert_document(alert: DegradationAlert) -> dict[str, Any]:
    """The alert as JSON reports and webhook bodies give it: its fields and ``alert_id``."""
    return {**alert.as_dict(), "alert_id": alert_id(alert)}
