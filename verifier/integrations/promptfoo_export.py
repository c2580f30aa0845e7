"""Stored gap rows written as promptfoo GradingResult objects, one JSON line per row.

Each line is ``{"pass", "score", "reason", "assertion", "metadata"}``, the shape
promptfoo gives a component assertion result. ``pass`` is true only for a ``pass``
row: an ``error`` row (no verdict could be had) and a ``skipped`` row (never checked)
are ``pass: false`` with score 0 and their reason prefixed by the status, so no
consumer can mistake them for passes or fails. ``assertion`` names the claim
(``type: "verifier"``, ``metric``: the claim id, ``value``: contract, version, claim
and kind); ``metadata.verifier`` names the row, so a result can be traced back to the
hash-chained record it came from.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from verifier.gaps.store import GapStore, StoredRow, StoreError

__all__ = [
    "claim_grading_result",
    "grading_result",
    "grading_results",
    "write_promptfoo_export",
]


def claim_grading_result(
    *,
    status: str,
    score: float | None,
    reason: str,
    claim_id: str,
    kind: str,
    contract_id: str,
    contract_version: int,
) -> dict[str, Any]:
    """The GradingResult of one checked claim: pass, score, reason and the claim."""
    if status in ("pass", "fail"):
        score = float(score) if score is not None else (1.0 if status == "pass" else 0.0)
    else:
        # No verdict: never a pass, never a score that could be read as one.
        score = 0.0
        if not reason.startswith(status):
            reason = f"{status}: {reason}" if reason else status
    return {
        "pass": status == "pass",
        "score": score,
        "reason": reason,
        "assertion": {
            "type": "verifier",
            "metric": claim_id,
            "value": {
                "contract": contract_id,
                "version": contract_version,
                "claim": claim_id,
                "kind": kind,
            },
        },
    }


def grading_result(row: dict[str, Any]) -> dict[str, Any]:
    """The GradingResult of one gap row (the row's stored JSON object plus ``row_hash``)."""
    result = claim_grading_result(
        status=row["status"],
        score=row.get("score"),
        reason=str(row.get("reason") or ""),
        claim_id=row["claim_id"],
        kind=row["kind"],
        contract_id=row["contract_id"],
        contract_version=row["contract_version"],
    )
    result["metadata"] = {
        "verifier": {
            "status": row["status"],
            "run_id": row["run_id"],
            "case_id": row["case_id"],
            "row_id": row["row_id"],
            "row_hash": row["row_hash"],
        }
    }
    return result


def grading_results(store: GapStore, *, run_id: str | None = None) -> Iterator[dict[str, Any]]:
    """Streams the GradingResult of every stored row (or one run's), in seq order.

    Raises:
        StoreError: ``run_id`` names no run, or a stored row is not a JSON object.
    """
    if run_id is not None and store.run(run_id) is None:
        raise StoreError(f"no run {run_id} in gap store {store.location}")
    for stored in store.iter_rows(run_id):
        yield grading_result(_row_object(stored, store))


def _row_object(stored: StoredRow, store: GapStore) -> dict[str, Any]:
    try:
        row = orjson.loads(stored.body)
    except orjson.JSONDecodeError:
        row = None
    if not isinstance(row, dict) or "status" not in row:
        raise StoreError(
            f"row {stored.seq} of {store.location} is not a gap row object; "
            "run `verifier audit` on the store"
        )
    row["row_hash"] = stored.row_hash
    return row


def write_promptfoo_export(
    store: GapStore, out: Path | None, *, run_id: str | None = None, stdout: IO[str] | None = None
) -> int:
    """Writes GradingResults as JSON lines to ``out`` (or ``stdout``); returns the count.

    A file appears only once complete: it is written beside its final name and renamed.
    """
    if out is None:
        import sys

        return _write(store, stdout or sys.stdout, run_id)
    from verifier._internal.atomic import write_whole

    return write_whole(out, lambda file: _write(store, file, run_id), "the export")


def _write(store: GapStore, stream: IO[str], run_id: str | None) -> int:
    count = 0
    for result in grading_results(store, run_id=run_id):
        stream.write(orjson.dumps(result).decode("utf-8") + "\n")
        count += 1
    return count
