"""The alerts sent, kept beside the gap rows: each degradation alert ``verifier audit
--notify`` posted, where, when and how it went, so a repeated audit posts each alert
once (ADR 0079).

One row per alert per delivery attempt at one destination: the alert's identity (a
SHA-256 of what makes it the same alert, ``verifier.analyses.alert_identity``) and
its parts, the destination's SHA-256 (a webhook URL carries its secret, so it is
never stored) and its masked form, the time, the outcome (``delivered``, or what
went wrong) and the requests made. An alert counts as delivered to a destination only
through a ``delivered`` row that is still what its seal recorded: a failed delivery
is tried again by the next audit, and a row forged or edited behind the store's back
is not credited (``verifier audit`` reports it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Final

from verifier._internal.closing import Closing
from verifier.errors import VerifierError
from verifier.gaps.alert_table import ALERT_DELIVERIES_DDL_POSTGRES, ALERT_DELIVERIES_DDL_SQLITE
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = ["DELIVERED", "AlertDelivery", "AlertDeliveryStore", "AlertDeliveryStoreError"]

DELIVERED: Final = "delivered"
_COLUMNS: Final = (
    "alert_id",
    "destination_sha256",
    "destination",
    "sent_at",
    "outcome",
    "attempts",
    "alert",
)
_TABLE: Final = TableSpec(
    "alert_deliveries", sqlite=ALERT_DELIVERIES_DDL_SQLITE, postgres=ALERT_DELIVERIES_DDL_POSTGRES
)


class AlertDeliveryStoreError(VerifierError):
    """A store whose alerts sent cannot be read or written."""


def _store_error(message: str) -> AlertDeliveryStoreError:
    return AlertDeliveryStoreError(f"alerts sent in {message}")


@dataclass(frozen=True, slots=True)
class AlertDelivery:
    """One alert posted (or not) to one destination.

    Attributes:
        alert_id: The alert's identity (64 hex digits).
        destination_sha256: SHA-256 of the destination URL.
        destination: The URL masked (scheme and host).
        sent_at: When it was posted (UTC, ISO 8601).
        outcome: ``delivered``, or why it was not.
        attempts: The requests made.
        alert: The alert's identifying parts, canonical JSON (no case content).
    """

    alert_id: str
    destination_sha256: str
    destination: str
    sent_at: str
    outcome: str
    attempts: int
    alert: str


class AlertDeliveryStore(Closing):
    """The ``alert_deliveries`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.

    Raises:
        AlertDeliveryStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str | Path) -> None:
        self._db = SideTables.open(str(target), _TABLE, error=_store_error)
        self.location = self._db.location

    def delivered(self, destination_sha256: str) -> set[str]:
        """The alerts delivered to a destination, by the sealed rows that say so."""
        records = self._db.records(
            _COLUMNS, where="destination_sha256 = ? AND outcome = ?",
            params=(destination_sha256, DELIVERED),
        )  # fmt: skip
        sealed = self._db.sealed(records)
        return {r["alert_id"] for r, ok in zip(records, sealed, strict=True) if ok}

    def record(self, deliveries: Iterable[AlertDelivery]) -> int:
        """Stores the deliveries, each sealed, in one transaction; returns how many."""
        return self._db.insert_sealed(_COLUMNS, [astuple(d) for d in deliveries])

    def close(self) -> None:
        self._db.close()
