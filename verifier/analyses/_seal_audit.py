"""The audit's walk along the seal chain, in step with the rows (``verifier.gaps.seals``).

Seals are read in order beside the rows: each seal's link and hash are checked as it
is read, then it waits until the rows reach the row it recorded, whose hash must be
the one it recorded. Only per-run facts are kept (the latest ``begin`` and ``end`` of
each run), so memory grows with runs, never with rows or seals.

The seal iterator is started before the rows are: a seal then never names a row the
rows' snapshot lacks (every seal is written with its rows, in one transaction).

Stored contract sources and case contents are checked here too, against their keys.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.analyses._audit_report import AuditReport
from verifier.gaps.chain import GENESIS
from verifier.gaps.seals import SEAL_KINDS, StoredSeal, seal_body, seal_intact
from verifier.gaps.store import GapStore, RunRecord, StoredRow

_RUN_BEGIN_FIELDS = ("contract_id", "contract_version", "contract_sha256", "started_at")


@dataclass(slots=True)
class RunSeals:
    """What the seal chain says of one run: its latest ``begin`` and ``end``."""

    begin: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    last_kind: str = "begin"
    last_n: int = 0


class SealWalk:
    """Checks the seal chain and each seal's recorded row, a batch of rows at a time."""

    def __init__(self, store: GapStore, report: AuditReport, expect_head: str | None) -> None:
        self.store = store
        self.report = report
        self.expect_head = expect_head
        self.runs: dict[str, RunSeals] = {}
        self.head: StoredSeal | None = None
        self._seals: Iterator[StoredSeal] = iter(store.iter_seals())
        self._pending: tuple[StoredSeal, int, str] | None = None
        self._tip = (0, GENESIS)  # the last row a seal recorded and the audit verified
        self._rows_seen = 0
        self._head_rows: int | None = None
        self._cut_reported = False
        self._next()  # starts the read: see the module's docstring

    def after_rows(self, batch: list[tuple[StoredRow, Any]]) -> None:
        """Verifies the seals whose recorded row is among the rows read so far."""
        pending = self._pending
        if pending is None:
            return
        top = max(row.seq for row, _ in batch)
        self._rows_seen = max(self._rows_seen, top)
        if pending[1] > self._rows_seen:
            return
        hashes = {row.seq: row.row_hash for row, _ in batch}
        while pending is not None and pending[1] <= self._rows_seen:
            self._check_tip(*pending, hashes)
            self._next()
            pending = self._pending

    def finish(self) -> None:
        """Checks the seals left once every row is read, and the published head."""
        while self._pending is not None:
            seal, seq, row_hash = self._pending
            if seq == 0 or seq <= self._rows_seen:
                self._check_tip(seal, seq, row_hash, {})
            elif not self._cut_reported:
                self._cut_reported = True
                self.report.add(
                    "seal",
                    seq,
                    None,
                    f"seal {seal.n} records row {seq}, but the chain ends at row "
                    f"{self._rows_seen}: rows were removed from its end",
                )
            self._next()
        head = self.head
        self.report.head = head.seal_hash if head else None
        self.report.head_seal = head.n if head else None
        self.report.head_rows = self._head_rows if head else None
        if self.expect_head is not None and self.report.expected_head_at is None:
            held = f"its head is {head.seal_hash} at seal {head.n}" if head else "it holds no seal"
            self.report.add(
                "head",
                None,
                None,
                f"the published head {self.expect_head} is not in the seal chain ({held}): "
                "the store was rewritten, cut or replaced since it was published",
            )

    def check_runs(self, records: dict[str, RunRecord], only: str | None) -> None:
        """Each sealed run's record (of ``only``, if given) against its seals; runs
        from before the seal chain have none, and are checked as before."""
        # The records and the seals are of one snapshot (see ``audit_store``): a run
        # that began or ended meanwhile is in both as it was, or in neither.
        for run_id in self.runs:
            if only is not None and run_id != only:
                continue
            problem = self.run_problem(records.get(run_id), run_id)
            if problem is not None:
                self.report.add("seal", None, None, problem)

    def contract_paths(self) -> dict[str, set[str]]:
        """By contract hash, the paths its runs' latest ``begin`` seals recorded."""
        paths: dict[str, set[str]] = {}
        for sealed in self.runs.values():
            begin = sealed.begin or {}
            sha, path = begin.get("contract_sha256"), begin.get("contract_path")
            if isinstance(sha, str) and isinstance(path, str):
                paths.setdefault(sha, set()).add(path)
        return paths

    def run_problem(self, record: RunRecord | None, run_id: str) -> str | None:
        """How a run record disagrees with the seals of its run, or ``None``."""
        sealed = self.runs[run_id]
        if record is None:
            return (
                f"run {run_id} was sealed (seal {sealed.last_n}) but has no run record: "
                "the run was deleted"
            )
        differs: list[str] = []
        begin = sealed.begin
        if begin is not None:
            differs += [f for f in _RUN_BEGIN_FIELDS if begin.get(f) != getattr(record, f)]
            if begin.get("options") != record.options:
                differs.append("options")
        end = sealed.end if sealed.last_kind == "end" else None
        if end is None:
            if record.status != "running":
                differs.append(f"status ({record.status}, but no end was sealed)")
        else:
            if end.get("status") != record.status:
                differs.append(f"status ({record.status}, sealed as {end.get('status')})")
            if end.get("finished_at") != record.finished_at:
                differs.append("finished_at")
            if end.get("summary") != record.summary:
                differs.append("summary")
        if not differs:
            return None
        return (
            f"run {run_id}'s record disagrees with its seal {sealed.last_n} "
            f"({', '.join(differs)}): the run record was edited"
        )

    def _next(self) -> None:
        seal = next(self._seals, None)
        if seal is None:
            self._pending = None
            return
        expected_n = self.head.n + 1 if self.head else 1
        prev = self.head.seal_hash if self.head else GENESIS
        self.head = seal
        body = seal_body(seal)
        add = self.report.add
        if seal.n != expected_n:
            add("seal", None, None, _seal_gap(expected_n, seal.n))
        rows = body.get("rows") if body else None
        seq = rows.get("seq") if isinstance(rows, dict) else None
        row_hash = rows.get("hash") if isinstance(rows, dict) else None
        readable = isinstance(seq, int) and isinstance(row_hash, str)
        if not seal_intact(seal) or body is None or _columns_differ(seal, body) or not readable:
            add("seal", None, None, f"seal {seal.n} was edited: its hash does not match it")
        elif seal.kind == "gate" and _gate_differs(seal, body):
            message = f"seal {seal.n} locks a gate that does not hash to its subject"
            add("seal", None, None, message + ": the lock was edited and sealed again")
        elif seal.prev_hash != prev and seal.n == expected_n:
            add("seal", None, None, f"seal {seal.n}'s prev_hash does not match seal {seal.n - 1}")
        if seal.seal_hash == self.expect_head:
            self.report.expected_head_at = seal.n
        self._head_rows = seq if readable else None
        self._pending = (seal, seq, row_hash) if readable else (seal, -1, "")  # type: ignore[assignment]
        if body is not None and seal.kind in ("begin", "end"):
            run = body.get("run")
            sealed = self.runs.setdefault(seal.subject, RunSeals())
            sealed.last_kind, sealed.last_n = seal.kind, seal.n
            if isinstance(run, dict):
                if seal.kind == "begin":
                    sealed.begin = run
                else:
                    sealed.end = run

    def _check_tip(self, seal: StoredSeal, seq: int, row_hash: str, hashes: dict[int, str]) -> None:
        if seq < 0:
            return  # an edited seal, reported as such
        if seq == 0:
            held: str | None = GENESIS
        elif seq in hashes:
            held = hashes[seq]
        elif seq == self._tip[0]:
            held = self._tip[1]
        else:
            held = None
        if held is None:
            message = f"seal {seal.n} records row {seq}, which the chain does not hold"
        elif held != row_hash:
            message = (
                f"seal {seal.n} records row {seq} with another hash than the chain holds: "
                f"row {seq} or a row before it was rewritten"
            )
        else:
            self._tip = (seq, row_hash)
            return
        self.report.add("seal", seq, None, message)


def check_sources(
    store: GapStore, report: AuditReport, sealed_paths: dict[str, set[str]] | None = None
) -> None:
    """Every stored contract source and case content against the hash it is kept
    under: a run's check can only be re-run from what it really checked. And each
    contract's path against the path its runs' ``begin`` seals recorded
    (``sealed_paths``, by contract hash; a contract stored before paths were sealed
    has none): a recheck reads schema files and recordings beside that path."""
    for contract in store.iter_contracts():
        if sha256_hex(contract.source) != contract.sha256:
            report.add(
                "contract",
                None,
                None,
                f"contract {contract.sha256} ({contract.path}) does not hash to its key: "
                "its stored source was edited",
            )
        paths = (sealed_paths or {}).get(contract.sha256)
        if paths and contract.path not in paths:
            report.add(
                "contract",
                None,
                None,
                f"contract {contract.sha256} is stored under the path {contract.path!r}, "
                f"but its runs' seals recorded {sorted(paths)[0]!r}: the path was edited",
            )
    for sha, body in store.iter_contents():
        if sha256_hex(body) != sha:
            message = f"case content {sha} does not hash to its key: it was edited"
            report.add("content", None, None, message)


def _columns_differ(seal: StoredSeal, body: dict[str, Any]) -> bool:
    return (
        body.get("n") != seal.n
        or body.get("prev_hash") != seal.prev_hash
        or body.get("kind") != seal.kind
        or body.get("subject") != seal.subject
        or seal.kind not in SEAL_KINDS
    )


def _gate_differs(seal: StoredSeal, body: dict[str, Any]) -> bool:
    gate = body.get("gate")
    return not isinstance(gate, dict) or sha256_hex(canonical_json(gate)) != seal.subject


def _seal_gap(expected: int, n: int) -> str:
    if n < expected:
        return f"seal {n} is out of place: seals start at 1 and only grow"
    missing = f"seal {expected}" if n == expected + 1 else f"seals {expected}-{n - 1}"
    return f"{missing} missing from the seal chain"
