"""A Message Batch as the local server keeps it, and its JSON as the API reports it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.judge.behaviours import Behaviour

_COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")


@dataclass
class Batch:
    """A created batch: each item's custom_id, params and the behaviour answering it."""

    id: str
    items: list[tuple[str, dict[str, Any], Behaviour]]
    polls: int = 0
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def counts(self, *, ended: bool) -> dict[str, int]:
        """``request_counts``: all ``processing`` until the batch ends."""
        counts = dict.fromkeys(_COUNTS, 0)
        for _, _, behaviour in self.items:
            if not ended:
                counts["processing"] += 1
            elif behaviour.kind in ("canceled", "expired"):
                counts[behaviour.kind] += 1
            elif behaviour.kind in ("error", "malformed"):
                counts["errored"] += 1
            else:
                counts["succeeded"] += 1
        return counts

    def as_json(self, *, ended: bool, base_url: str) -> dict[str, Any]:
        """The ``MessageBatch`` object; ``results_url`` (absolute) only once ended."""
        results_url = f"{base_url}/v1/messages/batches/{self.id}/results"
        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": self.counts(ended=ended),
            "created_at": self.created_at.isoformat(),
            "expires_at": (self.created_at + timedelta(hours=24)).isoformat(),
            "ended_at": datetime.now(UTC).isoformat() if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": results_url if ended else None,
        }
