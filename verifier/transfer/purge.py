"""Purging: deleting the stored contents of chosen runs, keeping every row.

A row carries the SHA-256 of its case's content, never the content itself, so
deleting a content leaves every row, its hash and the chain exactly as they were, and
whoever holds the case can still prove it is the one judged. The purge itself is
sealed (which contents, of which runs, when: a ``purge`` seal), so the audit tells a
content purged on purpose from one deleted behind the store's back.
A content is deleted only when no run outside the selection refers to it (contents
are stored once however many runs share them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.errors import VerifierError
from verifier.gaps.content import content_hash_of
from verifier.gaps.store import GapStore

__all__ = ["PurgeResult", "purge_contents", "select_runs"]


@dataclass(frozen=True, slots=True)
class PurgeResult:
    """What a purge deleted.

    Attributes:
        runs: The runs selected, oldest first.
        deleted: ``(sha256, bytes)`` of every content deleted, in hash order.
        kept: Contents of the selected runs kept because another run refers to them.
    """

    runs: tuple[str, ...]
    deleted: tuple[tuple[str, int], ...]
    kept: int


def select_runs(store: GapStore, *, run_id: str | None, before: str | None) -> list[str]:
    """The runs a purge covers: one run, or every run started before a date.

    Args:
        run_id: One run's id.
        before: An ISO 8601 date or UTC time (``2026-01-31``, ``2026-01-31T12:00:00Z``);
            runs that started earlier are selected.

    Raises:
        VerifierError: Neither or both are given, the run is unknown, or the date is
            not a date.
    """
    if (run_id is None) == (before is None):
        raise VerifierError("choose what to purge: --run RUN_ID or --before DATE")
    if run_id is not None:
        if store.run(run_id) is None:
            raise VerifierError(f"no run {run_id} in {store.location}")
        return [run_id]
    assert before is not None
    cutoff = _utc_text(before)
    # Stored start times are UTC ISO texts, so text order is time order.
    return [r.run_id for r in store.runs() if r.started_at < cutoff]


def purge_contents(store: GapStore, runs: Sequence[str]) -> PurgeResult:
    """Deletes the contents only ``runs`` refer to; rows are untouched."""
    selected = set(runs)
    wanted: set[str] = set()
    needed: set[str] = set()
    for row in store.iter_rows():
        sha = content_hash_of(row.body)
        if sha is not None:
            (wanted if row.run_id in selected else needed).add(sha)
    doomed = sorted(wanted - needed)
    deleted = []
    for sha in doomed:
        body = store.content(sha)
        if body is not None:  # recorded as a hash only, or purged already
            deleted.append((sha, len(body.encode("utf-8"))))
    if deleted:
        store.delete_contents((sha for sha, _ in deleted), runs=runs)
    return PurgeResult(tuple(runs), tuple(deleted), len(wanted & needed))


def _utc_text(text: str) -> str:
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise VerifierError(
            f"--before {text!r}: not a date (use 2026-01-31 or 2026-01-31T12:00:00Z)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    utc = when.astimezone(dt.UTC)
    return utc.isoformat(timespec="microseconds").replace("+00:00", "Z")
