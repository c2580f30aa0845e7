"""Checking a JSONL export whole before anything of it is written (``importer``'s
first pass): hashes, links, schema, judge triples, line order, contracts, run counts,
totals, and runs already in the target. Memory holds the runs and contracts only."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from verifier._internal.canonical import sha256_hex
from verifier.errors import VerifierError
from verifier.gaps._schema_check import packaged_row_schema
from verifier.gaps.chain import GENESIS, verify_link
from verifier.gaps.content import content_sha256
from verifier.gaps.row import TRIPLE_REQUIRED_STATUSES, missing_triple_parts
from verifier.gaps.row_fields import ROW_SCHEMA
from verifier.gaps.run_refs import is_reserved
from verifier.gaps.store import GapStore
from verifier.transfer._export_seals import SEAL_LINE_SCHEMA, SealCheck
from verifier.transfer._format import (
    CONTENT_SCHEMA,
    CONTRACT_SCHEMA,
    END_SCHEMA,
    EXPORT_SCHEMA,
    RESEALED_KEY,
    RUN_SCHEMA,
    canonical_body,
    header_scope,
    split_row_line,
)

# The order of line kinds an export keeps; a kind may not come back after a later one.
_ORDER = {
    EXPORT_SCHEMA: 0,
    ROW_SCHEMA: 1,
    CONTENT_SCHEMA: 1,  # among the rows, before the first that refers to it
    SEAL_LINE_SCHEMA: 2,  # after the rows
    CONTRACT_SCHEMA: 3,
    RUN_SCHEMA: 4,
    END_SCHEMA: 5,
}


class ExportRefused(VerifierError):
    """An export that cannot be imported; ``line`` is the first bad line (1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


class NotAnExport(ExportRefused):
    """A file that is no verifier export at all: wrong input, not a damaged export."""


class RunAlreadyInStore(ExportRefused):
    """An export whose run the target store holds already: wrong input (this file, or
    this store, was meant for another import), not a damaged export."""


def check_header(path: Path) -> None:
    """Reads only the first line of ``path``: raises ``NotAnExport`` unless it is an
    export's header, so a wrong file is refused before a store is opened (or made).

    Raises:
        NotAnExport: The file is empty or does not start with an export header.
        OSError: The file cannot be read.
    """
    with path.open("rb") as file:
        for number, line in numbered_lines(file):
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise NotAnExport(
                    number, "not a verifier export: its first line is not JSON"
                ) from None
            if not isinstance(value, dict) or value.get("schema") != EXPORT_SCHEMA:
                raise NotAnExport(number, "not a verifier export: it has no header line")
            return
    raise NotAnExport(1, "not a verifier export: the file is empty")


@dataclass(slots=True)
class StagedRun:
    """A run of the export: its run line (0 until read) and the rows counted so far."""

    line: int
    record: dict[str, Any]
    held: int = 0
    last_hash: str | None = None
    first_row_line: int | None = None


@dataclass(slots=True)
class StagedExport:
    """What the check learnt: the scope, contracts by sha256, runs in file order."""

    scope: str
    only_run: str | None = None
    contracts: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: dict[str, StagedRun] = field(default_factory=dict)
    rows: int = 0


def verify_export(path: Path, store: GapStore, expect_head: str | None = None) -> StagedExport:
    """Checks the whole export at ``path`` against itself and the target ``store``.

    Args:
        expect_head: A head the source store published: refused unless the export's
            seal chain holds it.

    Raises:
        ExportRefused: At the first problem, with its line.
    """
    schema = packaged_row_schema()
    staged: StagedExport | None = None
    stage = -1
    previous: tuple[int, str] | None = None  # (seq, row_hash) of the last row
    ended = False
    last = 0
    seals: SealCheck | None = None
    try:
        with path.open("rb") as file:
            for number, line in numbered_lines(file):
                last = number
                if ended:
                    raise ExportRefused(number, "a line after the end line")
                row = read_row(number, line)
                value = row if row is not None else _object(number, line)
                kind = value.get("schema")
                kind = kind if isinstance(kind, str) else ""
                if staged is None and kind != EXPORT_SCHEMA:
                    raise NotAnExport(number, "not a verifier export: it has no header line")
                if kind not in _ORDER:
                    raise ExportRefused(number, f"not a line of a verifier export: schema {kind!r}")
                if _ORDER[kind] < stage or (kind == EXPORT_SCHEMA and staged is not None):
                    raise ExportRefused(number, f"a {kind} line out of place")
                stage = _ORDER[kind]
                if kind == EXPORT_SCHEMA:
                    try:
                        only_run = header_scope(value)
                    except ValueError as exc:
                        raise ExportRefused(number, str(exc)) from None
                    scope = "store" if only_run is None else "run"
                    staged = StagedExport(scope, only_run)
                    seals = SealCheck(path, scope, expect_head, read_row)
                elif row is not None:
                    assert staged is not None
                    _check_row(number, row, previous, staged, schema.first_error)
                    previous = (row["seq"], row["row_hash"])
                elif kind == CONTENT_SCHEMA:
                    read_content(number, value)
                elif kind == SEAL_LINE_SCHEMA:
                    assert seals is not None
                    _refuse_if(number, seals.seal(value))
                elif kind == CONTRACT_SCHEMA:
                    assert staged is not None
                    _check_contract(number, value, staged)
                elif kind == RUN_SCHEMA:
                    assert staged is not None
                    _check_run(number, value, staged, store)
                    assert seals is not None
                    _refuse_if(number, seals.run(value))
                else:
                    assert staged is not None and seals is not None
                    _check_end(number, value, staged, previous)
                    _refuse_if(number, seals.end(value))
                    ended = True
    finally:
        if seals is not None:
            seals.close()

    if staged is None:
        raise ExportRefused(1, "the file is empty")
    if not ended:
        raise ExportRefused(last + 1, "the export ends without its end line: it was cut short")
    return staged


def _refuse_if(number: int, reason: str | None) -> None:
    if reason is not None:
        raise ExportRefused(number, reason)


def _check_row(
    number: int,
    row: dict[str, Any],
    previous: tuple[int, str] | None,
    staged: StagedExport,
    schema_error: Callable[[Any], str | None],
) -> None:
    seq = row.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise ExportRefused(number, "a row without an integer seq")
    if previous is None:
        if staged.scope == "store" and (seq != 1 or row.get("prev_hash") != GENESIS):
            raise ExportRefused(number, f"a store export starts at seq 1, not at seq {seq}")
    elif seq <= previous[0]:
        raise ExportRefused(number, f"row {seq} is out of place after row {previous[0]}")
    elif seq == previous[0] + 1 and row.get("prev_hash") != previous[1]:
        raise ExportRefused(number, f"row {seq}'s prev_hash does not match row {seq - 1}'s hash")
    elif staged.scope == "store" and seq != previous[0] + 1:
        raise ExportRefused(number, f"rows {previous[0] + 1}-{seq - 1} are missing")
    error = schema_error(row)
    if error is not None:
        raise ExportRefused(number, f"row {seq} breaks verifier.gap-row.v1 at {error}")
    status = row["status"]
    if status in TRIPLE_REQUIRED_STATUSES and (missing := missing_triple_parts(row)):
        raise ExportRefused(number, f"row {seq} is a {status} verdict without {missing[0]}")
    if not isinstance(row["evidence"].get(RESEALED_KEY, []), list):
        raise ExportRefused(number, f"row {seq}'s evidence.{RESEALED_KEY} is not a list")
    _of_the_run(number, f"row {seq}", row["run_id"], staged)
    run = staged.runs.get(row["run_id"])
    if run is None:
        run = staged.runs[row["run_id"]] = StagedRun(0, {}, first_row_line=number)
    run.held += 1
    run.last_hash = row["row_hash"]
    staged.rows += 1


def _of_the_run(number: int, what: str, run_id: Any, staged: StagedExport) -> None:
    """Refuses a line of another run in the export of one run (its header's)."""
    if staged.only_run is not None and run_id != staged.only_run:
        raise ExportRefused(
            number, f"{what} of run {run_id!r} in the export of run {staged.only_run!r}"
        )


def _check_contract(number: int, value: dict[str, Any], staged: StagedExport) -> None:
    sha, source, where = value.get("sha256"), value.get("source"), value.get("path")
    if not (isinstance(sha, str) and isinstance(source, str) and isinstance(where, str)):
        raise ExportRefused(number, "a contract line needs sha256, path and source")
    if sha256_hex(source) != sha:
        raise ExportRefused(number, f"contract {sha[:12]}'s source does not hash to it")
    staged.contracts[sha] = value


_RUN_FIELDS = {
    "run_id": str,
    "contract_id": str,
    "contract_version": int,
    "contract_sha256": str,
    "started_at": str,
    "status": str,
    "options": dict,
    "summary": dict,
    "rows": int,
}


def _check_run(number: int, value: dict[str, Any], staged: StagedExport, store: GapStore) -> None:
    for name, kind in _RUN_FIELDS.items():
        if not isinstance(value.get(name), kind):
            raise ExportRefused(number, f"a run line without a valid {name}")
    run_id = value["run_id"]
    _of_the_run(number, "a run line", run_id, staged)
    if is_reserved(run_id):
        raise ExportRefused(number, f"run id {run_id[:40]!r} is reserved (last, last~N)")
    run = staged.runs.get(run_id)
    if run is not None and run.line:
        raise ExportRefused(number, f"run {run_id} is described twice")
    if run is None:
        run = staged.runs[run_id] = StagedRun(number, value)
    run.line, run.record = number, value
    if value["status"] not in ("running", "finished", "interrupted"):
        raise ExportRefused(number, f"run {run_id} has an unknown status {value['status']!r}")
    if value["contract_sha256"] not in staged.contracts:
        raise ExportRefused(number, f"run {run_id}'s contract is not in the export")
    if run.held != value["rows"] or run.last_hash != value.get("last_hash"):
        raise ExportRefused(
            number,
            f"run {run_id} was exported with {value['rows']} rows ending in "
            f"{str(value.get('last_hash'))[:12]}; the file holds {run.held}"
            + (f" ending in {run.last_hash[:12]}" if run.last_hash else ""),
        )
    if store.run(run_id) is not None:
        raise RunAlreadyInStore(
            number,
            f"run {run_id} is already in {store.location}; importing it twice "
            "would hold its rows twice",
        )


def _check_end(
    number: int, value: dict[str, Any], staged: StagedExport, previous: tuple[int, str] | None
) -> None:
    orphans = [r for r in staged.runs.values() if not r.line]
    if orphans:
        first = min(r.first_row_line or 0 for r in orphans)
        raise ExportRefused(first, "a row of a run the export has no run line for")
    last_hash = previous[1] if previous else None
    if value.get("rows") != staged.rows or value.get("last_hash") != last_hash:
        raise ExportRefused(
            number,
            f"the export says it holds {value.get('rows')} rows; the file holds {staged.rows}",
        )
    if value.get("runs") != len(staged.runs):
        raise ExportRefused(
            number,
            f"the export says it holds {value.get('runs')} runs; the file holds {len(staged.runs)}",
        )


def read_content(number: int, value: dict[str, Any]) -> tuple[str, bytes]:
    """A content line's hash and body, the body verified to hash to it."""
    sha, body = value.get("sha256"), value.get("body")
    if not (isinstance(sha, str) and isinstance(body, str)):
        raise ExportRefused(number, "a content line needs sha256 and body (a string)")
    raw = body.encode("utf-8")
    if content_sha256(raw) != sha:
        raise ExportRefused(number, f"content {sha[:12]} was edited: its body does not hash to it")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or "case" not in parsed:
        raise ExportRefused(number, f"content {sha[:12]} is not a case content record")
    return sha, raw


def read_row(number: int, line: bytes) -> dict[str, Any] | None:
    """A row line parsed and its hash verified; ``None`` for another kind of line."""
    split = split_row_line(line)
    if split is not None:
        body, row_hash = split
        row = _object(number, body)
    else:
        row = _object(number, line)
        found = row.get("row_hash")
        if not isinstance(found, str):
            if row.get("schema") == ROW_SCHEMA:
                raise ExportRefused(number, "a row without its row_hash")
            return None
        body, row_hash = canonical_body(row), found
    if row.get("schema") != ROW_SCHEMA:
        raise ExportRefused(number, f"a line with a row_hash but schema {row.get('schema')!r}")
    prev_hash = row.get("prev_hash")
    if not isinstance(prev_hash, str) or not verify_link(prev_hash, body, row_hash):
        raise ExportRefused(
            number, f"row {row.get('seq')} was edited: its hash does not match its content"
        )
    row["row_hash"] = row_hash
    return row


def _object(number: int, text: bytes) -> dict[str, Any]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ExportRefused(number, "not JSON") from None
    if not isinstance(value, dict):
        raise ExportRefused(number, "not a JSON object")
    return value


def numbered_lines(file: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for number, raw in enumerate(file, start=1):
        line = raw.rstrip(b"\r\n")
        if line.strip():
            yield number, line
