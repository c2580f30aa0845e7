"""Integrity audit of a gap store: schema, columns, hash chain, judge triples, ids.

The audit streams every row once, in seq order, keeping only per-run tallies, so its
memory does not grow with the number of rows. The chain belongs to the whole store and
is always verified end to end; a ``run_id`` narrows only the row-level checks and the
run-record check.

Everything is read in one snapshot of the store (``GapStore.snapshot``): rows, seals,
run records, contracts and contents as they were when the audit began, so a run that
other processes begin, append to or end meanwhile is seen in one state, never half in
one and half in another. A run still running in that snapshot is reported in flight:
its rows so far are checked, its summary and row count (not recorded yet) are not.

A chain alone cannot show that rows were cut from its end (what remains is a valid
chain), so each ended run's row count and last row, recorded by ``finish_run``, are
compared with what the store holds.

Analyses of the store's history (judge drift, pass-rate trends) ride on the same pass:
each ``RowObserver`` given to ``audit_store`` sees every row of the store, whatever
``run_id`` narrows, because history needs the runs before the one in question.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Protocol, TypeAlias

import orjson

from verifier.analyses._audit_report import AuditProblem, AuditReport, ProblemKind
from verifier.analyses._record_audit import ContentPresence, check_records
from verifier.analyses._seal_audit import SealWalk, check_sources
from verifier.analyses._summary_audit import SummaryCheck
from verifier.gaps._schema_check import RowSchemaCheck, packaged_row_schema
from verifier.gaps.chain import GENESIS
from verifier.gaps.row import (
    TRIPLE_PARTS,
    TRIPLE_REQUIRED_STATUSES,
    malformed_sentinels,
    missing_triple_parts,
)
from verifier.gaps.row_fields import COPIED_COLUMNS
from verifier.gaps.store import GapStore, RunRecord, StoredRow, StoreError
from verifier.gaps.vendor_managed import VENDOR_MANAGED_PREFIX

__all__ = [
    "OBSERVED_BATCH",
    "AuditProblem",
    "AuditReport",
    "ObservedRows",
    "ProblemKind",
    "RowObserver",
    "audit_store",
]

_FROM_BODY = itemgetter(*COPIED_COLUMNS)
_FROM_ROW = itemgetter(*(StoredRow._fields.index(name) for name in COPIED_COLUMNS))
# Only rows of these kinds can need a judge triple (see ``needs_triple``); testing the
# kind first spares the full check on every rubric row.
_JUDGED_KINDS = frozenset({"judge", "comparative"})


ObservedRows: TypeAlias = Sequence[tuple[StoredRow, dict[str, Any] | None]]
"""Rows in seq order, each with its body parsed (``None`` when not a JSON object)."""

OBSERVED_BATCH = 32
"""Rows an observer is handed at a time. A call per batch rather than per row keeps
the pass fast; a small batch lets its rows die young, so the cycle collector does
not scan them again and again (1000 rows a batch cost 5% more in all)."""


class RowObserver(Protocol):
    """Something fed every row of the audit's single pass, in seq order."""

    def observe(self, rows: ObservedRows) -> None:
        """Takes the next rows of the store, at most ``OBSERVED_BATCH`` of them.

        Must keep no per-row state: an observer's memory may grow with runs and
        claims, never with rows. The bodies are the audit's own, not to be changed.
        """
        ...


@dataclass(slots=True)
class _RunTally:
    rows: int = 0
    last_seq: int | None = None
    last_hash: str | None = None


def audit_store(
    store: GapStore,
    run_id: str | None = None,
    *,
    max_problems: int = 1000,
    observers: Sequence[RowObserver] = (),
    expect_head: str | None = None,
) -> AuditReport:
    """Checks the integrity of a store, or of one run within it.

    Checks every row's body against the ``verifier.gap-row.v1`` schema, that its
    columns agree with its body, the judge triple of every verdict, the hash chain,
    ``row_id`` uniqueness, that each ended run still holds the rows it recorded, the
    seal chain and each row and run record it seals, each ended run's summary against
    its rows, that every stored contract and case content hashes to its key, every
    row of the tables beside the rows and every judge-cache entry against its seal,
    and that every content a row refers to is stored or was purged.

    Args:
        store: The store to read.
        run_id: Limit the row-level and run-record checks to this run; the chain is
            still verified over the whole store.
        max_problems: How many problems to keep in the report; the rest are counted.
        observers: Fed every row of the store (not only ``run_id``'s) during the pass.
        expect_head: A head published earlier: a problem unless the seal chain holds it.

    Returns:
        The report; ``report.ok`` is false on any integrity problem.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run at all.
    """
    report = AuditReport(store.location, run_id, max_problems=max_problems)
    report.expected_head = expect_head
    with store.snapshot():
        return _audit(store, run_id, report, observers, expect_head)


def _audit(
    store: GapStore,
    run_id: str | None,
    report: AuditReport,
    observers: Sequence[RowObserver],
    expect_head: str | None,
) -> AuditReport:
    audit = _Audit(store, run_id, report)
    # The store finds duplicate ids in a query of its own (a sort of every row id);
    # asked first, on a thread, it runs while the rows stream past.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="verifier-audit") as pool:
        duplicates = pool.submit(store.duplicate_row_ids, run_id)
        audit.seals = SealWalk(store, report, expect_head)
        contents = ContentPresence(store, audit.runs, run_id, report)
        audit.stream((*observers, audit.summaries, contents))
        audit.seals.finish()
        contents.finish()
        audit.check_runs()
        check_sources(store, report, audit.seals.contract_paths())
        check_records(store, report)
        found = duplicates.result()
    for duplicate in found:
        held_by = ", ".join(str(s) for s in duplicate.seqs)
        audit.report.add(
            "duplicate_row_id",
            duplicate.seqs[0],
            duplicate.row_id,
            f"row_id {duplicate.row_id} is held by rows {held_by}",
        )
    return audit.report


class _Audit:
    def __init__(self, store: GapStore, run_id: str | None, report: AuditReport) -> None:
        self.store = store
        self.run_id = run_id
        self.report = report
        self.runs: dict[str, RunRecord] = {r.run_id: r for r in store.runs()}
        self.tallies: dict[str, _RunTally] = {}
        self.unknown_runs: set[str] = set()
        self.schema: RowSchemaCheck = packaged_row_schema()
        self.all_valid = self.schema.all_valid
        self.selected: set[str] = set()
        # Where the walk along the chain is, between batches.
        self.expected_seq, self.prev_hash, self.tally = 1, GENESIS, _RunTally()
        self.current_run: str | None = None
        self.in_scope = False
        self.chain_rows = self.rows_checked = 0
        self.summaries = SummaryCheck(
            r for r in self.runs.values() if run_id is None or r.run_id == run_id
        )
        self.seals: SealWalk | None = None

    def stream(self, observers: tuple[RowObserver, ...]) -> None:
        # This runs once per row of the store: rows are parsed here, then checked a
        # batch at a time, so the schema validator is called once per batch.
        loads, only, check_batch = orjson.loads, self.run_id, self.check_batch
        seals = self.seals.after_rows if self.seals is not None else None
        batch: list[tuple[StoredRow, dict[str, Any] | None]] = []
        scoped: list[dict[str, Any]] = []
        for row in self.store.iter_rows():
            try:
                body: Any = loads(row.body)
            except orjson.JSONDecodeError:
                body = None
            if type(body) is dict:
                if only is None or row.run_id == only:
                    body["row_hash"] = row.row_hash  # the schema describes the whole row
                    scoped.append(body)
                batch.append((row, body))
            else:
                batch.append((row, None))
            if len(batch) == OBSERVED_BATCH:
                check_batch(batch, scoped)
                if seals is not None:
                    seals(batch)
                for observer in observers:
                    observer.observe(batch)
                batch, scoped = [], []
        if batch:
            check_batch(batch, scoped)
            if seals is not None:
                seals(batch)
            for observer in observers:
                observer.observe(batch)
        self.report.chain_rows = self.chain_rows
        self.report.rows_checked = self.rows_checked
        self.report.runs_seen = len(self.selected)

    def check_batch(
        self, batch: list[tuple[StoredRow, dict[str, Any] | None]], scoped: list[dict[str, Any]]
    ) -> None:
        """Checks the chain over ``batch`` and the rows in scope, in seq order.

        Args:
            batch: Rows in seq order, each with its body (``None``: not a JSON object).
            scoped: The bodies of the rows in scope, ``row_hash`` added.
        """
        add, only, sha256, check_row = self.report.add, self.run_id, hashlib.sha256, self.check_row
        from_body, from_row = _FROM_BODY, _FROM_ROW
        expected_seq, prev_hash, tally = self.expected_seq, self.prev_hash, self.tally
        current_run, in_scope, checked = self.current_run, self.in_scope, 0
        schema_checked = self.all_valid(scoped)
        for row, body in batch:
            seq, row_hash = row.seq, row.row_hash
            # What was hashed is the body's prev_hash; the column is only a copy.
            linked_to = body.get("prev_hash") if body is not None else None
            if type(linked_to) is not str:
                linked_to = row.prev_hash
            if seq != expected_seq:
                add("chain", seq, row.row_id, _gap_message(expected_seq, seq))
            # verify_link, inlined: a prev_hash that is not ASCII was never produced.
            try:
                digest = sha256(linked_to.encode("ascii") + row.body.encode())
                intact = digest.hexdigest() == row_hash
            except UnicodeEncodeError:
                intact = False
            # An edited row explains any link mismatch of its own; a link mismatch on
            # a row that hashes correctly means a row was replaced or forged.
            if not intact:
                message = f"row {seq} was edited: its hash does not match its content"
                add("chain", seq, row.row_id, message)
            elif linked_to != prev_hash and seq == expected_seq:
                after = f"row {seq - 1}'s hash" if seq > 1 else "the genesis hash"
                add("chain", seq, row.row_id, f"row {seq}'s prev_hash does not match {after}")
            expected_seq, prev_hash = seq + 1, row_hash
            run_id = row.run_id
            if run_id != current_run:
                # Per-run work only when the run changes, which in a chain is rare.
                current_run = run_id
                tally = self.tallies.get(run_id) or self.tallies.setdefault(run_id, _RunTally())
                in_scope = only is None or run_id == only
                if in_scope:
                    self.selected.add(run_id)
                    self.check_run_known(row)
            tally.rows += 1
            tally.last_seq, tally.last_hash = seq, row_hash
            if in_scope:
                checked += 1
                # A valid body has every key read here; anything unusual is left to
                # check_row, which finds and words the problems.
                if not (
                    schema_checked
                    and body is not None
                    and from_body(body) == from_row(row)
                    and (body["status"] not in TRIPLE_REQUIRED_STATUSES or _has_full_triple(body))
                ):
                    check_row(row, body, schema_checked)
        self.expected_seq, self.prev_hash, self.tally = expected_seq, prev_hash, tally
        self.current_run, self.in_scope = current_run, in_scope
        self.chain_rows += len(batch)
        self.rows_checked += checked

    def check_run_known(self, row: StoredRow) -> None:
        if row.run_id not in self.runs and row.run_id not in self.unknown_runs:
            self.unknown_runs.add(row.run_id)
            message = f"row {row.seq} is of run {row.run_id}, which has no run record"
            self.report.add("run", row.seq, row.row_id, message)

    def check_row(self, row: StoredRow, body: dict[str, Any] | None, schema_checked: bool) -> None:
        """The row-level checks; ``schema_checked``: the body is known to be valid."""
        if body is None:
            self.report.add(
                "body", row.seq, row.row_id, f"row {row.seq}'s body is not a JSON object"
            )
            return
        try:
            differs = _FROM_BODY(body) != _FROM_ROW(row)
        except KeyError:
            differs = True
        if differs:
            names = [n for n in COPIED_COLUMNS if body.get(n) != row[StoredRow._fields.index(n)]]
            self.report.add(
                "column",
                row.seq,
                row.row_id,
                f"row {row.seq}'s columns disagree with its body: {', '.join(names)}",
            )
        if not schema_checked:
            error = self.schema.first_error(body)
            if error is not None:
                message = f"row {row.seq} breaks verifier.gap-row.v1 at {error}"
                self.report.add("schema", row.seq, row.row_id, message)
        status = body.get("status")
        if (
            status in TRIPLE_REQUIRED_STATUSES
            and not _has_full_triple(body)
            and (missing := missing_triple_parts(body))
        ):
            self.report.add(
                "judge_triple",
                row.seq,
                row.row_id,
                f"row {row.seq} is a {status} verdict without its full stability triple "
                f"(missing {', '.join(missing)}): only an error row may lack it",
            )
        if status in TRIPLE_REQUIRED_STATUSES and (bad := malformed_sentinels(body)):
            self.report.add(
                "judge_triple",
                row.seq,
                row.row_id,
                f"row {row.seq} is a {status} verdict whose {', '.join(bad)} is not "
                f"{VENDOR_MANAGED_PREFIX}<vendor>:<endpoint>: it names no prompt",
            )

    def check_runs(self) -> None:
        if self.run_id is None:
            records = list(self.runs.values())
        elif self.run_id in self.runs:
            records = [self.runs[self.run_id]]
        elif self.run_id in self.tallies:
            records = []  # its rows were checked and "no run record" reported
        else:
            raise StoreError(f"no run {self.run_id} in gap store {self.store.location}")
        for record in records:
            if record.status == "running":
                self.report.in_flight.append(record.run_id)
            else:
                self.check_ended_run(record)
        self.summaries.report(self.report, [r.run_id for r in records])
        if self.seals is not None:
            self.seals.check_runs(self.runs, self.run_id)

    def check_ended_run(self, record: RunRecord) -> None:
        add, chain = self.report.add, record.chain_record
        if chain is None:
            add(
                "run",
                None,
                None,
                f"run {record.run_id} is {record.status} but its "
                "recorded row count is missing or unreadable",
            )
            return
        held = self.tallies.get(record.run_id, _RunTally())
        if held.rows == chain.rows and held.last_hash == chain.last_hash:
            return
        recorded = f"run {record.run_id} ended with {chain.rows} rows"
        if chain.last_seq is not None:
            recorded += f" up to seq {chain.last_seq}"
        if chain.last_seq is not None and (held.last_seq or 0) < chain.last_seq:
            first_missing = (held.last_seq or 0) + 1
            message = (
                f"{recorded}, the store holds {held.rows}: "
                f"its rows from seq {first_missing} on were removed"
            )
            add("chain", first_missing, None, message)
        elif held.last_hash != chain.last_hash:
            message = (
                f"{recorded}; the store holds {held.rows} up to seq {held.last_seq}, "
                "ending in a row it did not record"
            )
            add("chain", held.last_seq, None, message)
        else:
            message = f"{recorded}; the store holds {held.rows} of them"
            add("run", held.last_seq, None, message)


def _has_full_triple(body: dict[str, Any]) -> bool:
    """The common case of ``missing_triple_parts`` returning ``[]`` (no triple needed,
    or complete ones), decided without its generality; ``False`` means only that the
    full check must decide."""
    evidence = body.get("evidence")
    if type(evidence) is not dict:
        return False
    if body.get("kind") in _JUDGED_KINDS and not _complete(evidence.get("judge")):
        return False
    sut = evidence.get("sut")
    if sut is None:
        return True
    return type(sut) is dict and (sut.get("kind") != "prompt" or _complete(sut.get("triple")))


def _complete(triple: Any) -> bool:
    if type(triple) is not dict:
        return False
    for part in TRIPLE_PARTS:
        value = triple.get(part)
        if type(value) is not str or not value.strip():
            return False
    # A vendor-managed sentinel is rare: the full check words what is wrong with it.
    return not triple["prompt_sha"].startswith(VENDOR_MANAGED_PREFIX)


def _gap_message(expected: int, seq: int) -> str:
    if seq < expected:
        return f"row {seq} is out of place: seqs start at 1 and only grow"
    missing = f"row {expected}" if seq == expected + 1 else f"rows {expected}-{seq - 1}"
    if expected == 1:
        return f"{missing} missing: the chain starts at seq {seq}"
    return f"{missing} missing: seq jumps from {expected - 1} to {seq}"
