"""The audit of what is kept beside the rows: sealed tables, judge-cache entries, contents.

Every table that decides something is sealed (``verifier.gaps.record_seals``); here
each of its rows is checked against its seal: a row that differs from its latest seal
was edited, a sealed row that is gone was deleted. A row no seal names in a table
that holds seals was added behind the store's back (the first write of this release
sealed the earlier release's rows): verifier does not use it, and the audit fails.
In a table never sealed, every row is an earlier release's: a note says so, and a
store an earlier release wrote still audits.

Each judge-cache entry is checked against its latest ``cache`` seal, as a run checks
it before serving it. And every content a row of a run that records contents refers
to must be stored, unless a ``purge`` seal covers it: a content deleted without a
purge is reported.

Everything is read through the store, inside the audit's snapshot. Tables beside the
rows are small, the judge cache is read a page at a time, and the contents rows refer
to are looked up a batch at a time: memory does not grow with rows or cache entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from verifier.analyses._audit_report import AuditReport
from verifier.gaps.content import record_mode
from verifier.gaps.record_seals import (
    RECORD_SEALS_QUERY,
    SealedRecords,
    key_of,
    purged_of,
    record_sha256,
)
from verifier.gaps.seals import StoredSeal, cache_entry_sealed
from verifier.gaps.store import GapStore, RunRecord, StoredRow

__all__ = ["ContentPresence", "check_records"]

# A sealed table: its key columns (``None``: rows never change, each is keyed by its
# own hash), the columns its seal leaves out, and how a row is named in a message.
_TABLES: Final[tuple[tuple[str, tuple[str, ...] | None, tuple[str, ...], str], ...]] = (
    ("calibrations", None, ("id",), "calibration of claim {claim_id} (run {run_id})"),
    ("case_calibrations", None, ("id",), "case calibration ({kind} labels) of run {run_id}"),
    ("resamples", None, ("id",), "resample of claim {claim_id} on case {case_id} (run {run_id})"),
    ("trials", None, ("id",), "trial {trial_id} of judge {judge} with {candidate_model}"),
    ("successions", None, ("id",), "succession {succession_id} of judge {judge}"),
    (
        "alert_deliveries",
        None,
        ("id",),
        "delivery of alert {alert_id:.12} to {destination} at {sent_at} ({outcome})",
    ),
    (
        "judge_batches",
        ("run_id", "judge", "seq"),
        (),
        "batch {seq} of judge {judge} (run {run_id})",
    ),
)
_CACHE_PAGE: Final = 500
_LOOKUPS: Final = 500

Select = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


def check_records(store: GapStore, report: AuditReport) -> None:
    """Every row of every sealed table and every judge-cache entry against its seal."""
    select: Select | None = getattr(store, "select", None)
    columns_of = getattr(store, "table_columns", None)
    if select is None or columns_of is None:
        return  # a store of another kind keeps no tables beside its rows
    seals = [StoredSeal(*row) for row in select(RECORD_SEALS_QUERY, ())]
    for table, key, left_out, name in _TABLES:
        columns = [c for c in columns_of(table) if c not in left_out]
        if columns:
            rows = select(f"SELECT {', '.join(columns)} FROM {table}", ())
            sealed = SealedRecords.of(table, seals)
            _check_table(table, key, name, columns, rows, sealed, report)
    if {"key", "entry"} <= set(columns_of("judge_cache")):
        _check_cache(select, getattr(store, "placeholder", "?"), report)


def _check_table(
    table: str,
    key: tuple[str, ...] | None,
    name: str,
    columns: Sequence[str],
    rows: list[tuple[Any, ...]],
    sealed: SealedRecords,
    report: AuditReport,
) -> None:
    held: dict[str, int] = {}
    unsealed: list[str] = []
    for row in rows:
        values = dict(zip(columns, row, strict=True))
        found = key_of(values, key) if key is not None else record_sha256(values)
        held[found] = held.get(found, 0) + 1
        if found not in sealed.latest:
            unsealed.append(_named(name, values))
            continue
        latest = sealed.latest[found]
        if latest is not None and not sealed.holds(found, values):
            # (A seal that is not intact is the seal walk's to report.)
            report.add(
                "seal",
                None,
                None,
                f"{table}: {_named(name, values)} differs from its seal {latest[1]}: "
                "it was edited after it was sealed",
            )
    for found, count in sealed.counts.items():
        if held.get(found, 0) < (count if key is None else 1):
            latest = sealed.latest.get(found)
            at = f" (seal {latest[1]})" if latest else ""
            report.add(
                "seal",
                None,
                None,
                f"{table}: a row sealed{at} under {found[:64]} is gone from the table: "
                "it was deleted (or edited) behind the store's back",
            )
    if unsealed and sealed.counts:
        # The table was sealed (its earlier rows adopted then): these came after.
        report.add(
            "seal",
            None,
            None,
            f"{table}: {len(unsealed)} row(s) no seal vouches for (e.g. {unsealed[0]}): "
            "added behind the store's back; verifier does not use them",
        )
    elif unsealed:
        report.notes.append(
            f"{table}: {len(unsealed)} row(s) saved by an earlier release, not sealed yet "
            f"(e.g. {unsealed[0]}): sealed as found when this release next writes the table"
        )


def _named(name: str, values: Mapping[str, Any]) -> str:
    try:
        return name.format(**values)
    except (KeyError, IndexError, ValueError):
        return "a row"


def _check_cache(select: Select, placeholder: str, report: AuditReport) -> None:
    query = (
        "SELECT e.key, e.entry, s.n, s.kind, s.subject, s.body, s.prev_hash, s.seal_hash"
        " FROM judge_cache e LEFT JOIN seals s ON s.n = (SELECT MAX(n) FROM seals"
        f" WHERE subject = e.key AND kind = 'cache') WHERE e.key > {placeholder}"
        f" ORDER BY e.key LIMIT {_CACHE_PAGE}"
    )
    after, unsealed = "", 0
    while page := select(query, (after,)):
        for key, entry, *seal in page:
            if seal[0] is None:
                unsealed += 1
            elif not cache_entry_sealed(StoredSeal(*seal), key, entry):
                report.add(
                    "seal",
                    None,
                    None,
                    f"judge cache entry {key} differs from its seal {seal[0]}: it was edited "
                    "after it was sealed (a run asks the judge again rather than serve it)",
                )
        after = str(page[-1][0])
    if unsealed:
        report.notes.append(
            f"judge cache: {unsealed} entr(ies) no seal vouches for, written by an earlier "
            "release or behind the store's back: a run asks the judge again rather than "
            "serve them"
        )


class ContentPresence:
    """Checks that every content a row refers to is stored or was purged (a
    ``RowObserver``): a run that records contents (``record: full``) stores the
    content of each of its cases, so one missing that no purge covers was deleted.

    Args:
        store: The store audited (its contents are looked up a batch at a time).
        runs: The store's run records, for each run's record policy.
        only: Only the rows of this run (``None``: every run's).
        report: Where missing contents are reported.
    """

    def __init__(
        self,
        store: GapStore,
        runs: Mapping[str, RunRecord],
        only: str | None,
        report: AuditReport,
    ) -> None:
        self._lookup: Callable[[Sequence[str]], set[str]] | None = getattr(
            store, "stored_contents", None
        )
        self._full = {r.run_id for r in runs.values() if record_mode(r.options) == "full"}
        self._only = only
        self._report = report
        self._purged = purged_of(store) if self._lookup is not None else {}
        self._pending: dict[str, tuple[int, str]] = {}
        self._last: object = None

    def observe(self, rows: Sequence[tuple[StoredRow, Any]]) -> None:
        """Takes rows with their parsed bodies; looks their contents up in batches."""
        if self._lookup is None:
            return
        for row, body in rows:
            if type(body) is not dict or (self._only is not None and row.run_id != self._only):
                continue
            sha = body.get("content_sha256")
            # A case's rows are consecutive and share their content: looked up once.
            if sha == self._last or type(sha) is not str or row.run_id not in self._full:
                continue
            self._last = sha
            if sha not in self._purged:
                self._pending.setdefault(sha, (row.seq, row.run_id))
                if len(self._pending) >= _LOOKUPS:
                    self.finish()

    def finish(self) -> None:
        """Looks up the contents not looked up yet and reports those missing."""
        pending, self._pending = self._pending, {}
        if not pending or self._lookup is None:
            return
        stored = self._lookup(list(pending))
        for sha, (seq, run_id) in pending.items():
            if sha not in stored:
                self._report.add(
                    "content",
                    seq,
                    None,
                    f"case content {sha} of run {run_id} (row {seq}) is not in the store, "
                    "and no purge removed it: it was deleted behind the store's back",
                )
