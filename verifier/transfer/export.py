"""Exporting a store's rows: JSONL that another store can import, or Parquet to analyse.

Both stream: rows are read and written a batch at a time, so memory does not grow
with the store. The JSONL format is described in ``_transfer_format``; its rows are
the stored bodies with ``row_hash`` added, so every hash and link re-verifies from
the file alone. Parquet (``pip install 'verifier-llm[parquet]'``) is for analysis: one
column per gap-row field with a fixed schema, ``evidence`` as a JSON string, written
in row groups; it carries no run records and cannot be imported.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

from verifier._internal.atomic import special_file, write_whole
from verifier.gaps.content import content_hash_of
from verifier.gaps.store import GapStore, RunRecord, StoredContract, StoredRow, StoreError
from verifier.transfer._export_seals import SealLines
from verifier.transfer._format import (
    CONTENT_SCHEMA,
    CONTRACT_SCHEMA,
    END_SCHEMA,
    EXPORT_SCHEMA,
    RUN_SCHEMA,
    row_line,
)

__all__ = ["ExportSummary", "export_jsonl", "export_parquet", "write_export"]

PARQUET_BATCH_ROWS = 20_000
_CONTENTS_REMEMBERED = 10_000
"""Contents already written that an export remembers, so a content shared by many
rows is written once without memory growing with the store (past this many, a
content may be written again; the import stores it once)."""


@dataclass(slots=True)
class ExportSummary:
    """What an export wrote.

    Attributes:
        rows: Rows written.
        runs: Runs exported: the run records written (JSONL), or the runs that have
            rows in the file (Parquet, which holds no run records).
        last_seq: Seq of the last row written.
        last_hash: ``row_hash`` of the last row written.
        warnings: Things an import of this file will refuse (a row whose run has no
            record, a run whose contract is not stored).
        contents: Case contents written.
    """

    rows: int = 0
    contents: int = 0
    runs: int = 0
    last_seq: int | None = None
    last_hash: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _RunRows:
    rows: int = 0
    last_seq: int | None = None
    last_hash: str | None = None


def export_jsonl(
    store: GapStore, out: IO[str], *, run_id: str | None = None, exported_at: str | None = None
) -> ExportSummary:
    """Writes the store (or one run) as a ``verifier.gap-export.v1`` JSONL export.

    Args:
        store: The store to read.
        out: Where the lines go; not closed here.
        run_id: Export this run's rows only.
        exported_at: The header's time (default: now, UTC).

    Raises:
        StoreError: The store cannot be read, a row's body is not a JSON object, or
            ``run_id`` names no run.
    """
    _check_run(store, run_id)
    summary = ExportSummary()
    header = {
        "schema": EXPORT_SCHEMA,
        "scope": "store" if run_id is None else "run",
        "run_id": run_id,
        "exported_at": exported_at or _now(),
    }
    write = out.write
    write(_line(header))
    per_run: dict[str, _RunRows] = {}
    held = _RunRows()
    written: set[str] = set()
    seals = SealLines(store, write)
    for row in _rows(store, run_id):
        sha = content_hash_of(row.body)
        if sha is not None and sha not in written:
            if len(written) >= _CONTENTS_REMEMBERED:
                written.clear()
            written.add(sha)
            content = store.content(sha)
            if content is not None:  # recorded as a hash only, or purged
                write(_line({"schema": CONTENT_SCHEMA, "sha256": sha, "body": content}))
                summary.contents += 1
        write(row_line(row.body, row.row_hash))
        write("\n")
        if row.run_id not in per_run:
            per_run[row.run_id] = _RunRows()
        held = per_run[row.run_id]
        held.rows += 1
        held.last_seq, held.last_hash = row.seq, row.row_hash
        summary.rows += 1
        summary.last_seq, summary.last_hash = held.last_seq, held.last_hash
    seals.rest()
    # Read after the rows, so a run that ended meanwhile is described as it ended.
    records = _records(store, run_id, per_run, summary)
    contracts = 0
    for sha in dict.fromkeys(r.contract_sha256 for r in records):
        contract = store.contract(sha)
        if contract is None:
            summary.warnings.append(f"contract {sha} of a run is not in the store")
            continue
        write(_line({"schema": CONTRACT_SCHEMA, **_fields(contract)}))
        contracts += 1
    for record in records:
        held = per_run.get(record.run_id, _RunRows())
        write(_line(_run_line(record, held)))
    summary.runs = len(records)
    end = {
        "schema": END_SCHEMA,
        "rows": summary.rows,
        "runs": summary.runs,
        "contracts": contracts,
        "last_seq": summary.last_seq,
        "last_hash": summary.last_hash,
        "head": seals.head,
    }
    write(_line(end))
    return summary


def export_parquet(
    store: GapStore, path: Path, *, run_id: str | None = None, batch_rows: int = PARQUET_BATCH_ROWS
) -> ExportSummary:
    """Writes the store's rows (or one run's) to a Parquet file, a row group a batch.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run.
        ImportError: pyarrow is not installed (``pip install 'verifier-llm[parquet]'``).
    """
    from verifier.transfer._parquet import ParquetRows

    _check_run(store, run_id)
    summary = ExportSummary()
    runs: set[str] = set()
    with ParquetRows(path, batch_rows=batch_rows) as writer:
        for row in _rows(store, run_id, need_object=False):
            writer.add(row)
            runs.add(row.run_id)
            summary.rows += 1
            summary.last_seq, summary.last_hash = row.seq, row.row_hash
    summary.runs = len(runs)
    return summary


def write_export(
    store: GapStore, fmt: str, out: Path | None, *, run_id: str | None = None
) -> ExportSummary:
    """Exports to ``out`` (standard output when ``None``, JSONL only).

    A file appears only once complete: it is written beside its final name and renamed.

    Raises:
        StoreError: The store cannot be read, or ``run_id`` names no run.
        ValueError: Parquet without a file to write.
        ImportError: Parquet without pyarrow.
        OutputError: ``out`` could not be written (JSONL).
        OSError: ``out`` could not be written (Parquet).
    """
    if out is None:
        if fmt == "parquet":
            raise ValueError("a Parquet export needs --out FILE")
        return export_jsonl(store, sys.stdout, run_id=run_id)
    if fmt != "parquet":
        return write_whole(out, lambda file: export_jsonl(store, file, run_id=run_id), "the export")
    if special_file(out):  # /dev/stdout, a pipe: renaming over it would replace it
        return export_parquet(store, out, run_id=run_id)
    partial = out.with_name(out.name + ".partial")
    try:
        summary = export_parquet(store, partial, run_id=run_id)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return summary


def _check_run(store: GapStore, run_id: str | None) -> None:
    if run_id is not None and store.run(run_id) is None:
        raise StoreError(f"no run {run_id} in gap store {store.location}")


def _rows(store: GapStore, run_id: str | None, *, need_object: bool = True) -> Iterator[StoredRow]:
    for row in store.iter_rows(run_id):
        body = row.body
        if need_object and not (len(body) > 2 and body[0] == "{" and body[-1] == "}"):
            raise StoreError(
                f"row {row.seq} of {store.location} is not a JSON object, so it cannot be "
                "exported with its row_hash; run `verifier audit` on the store"
            )
        yield row


def _records(
    store: GapStore, run_id: str | None, per_run: dict[str, _RunRows], summary: ExportSummary
) -> list[RunRecord]:
    if run_id is not None:
        record = store.run(run_id)
        return [record] if record is not None else []
    records = store.runs()
    known = {r.run_id for r in records}
    for missing in (r for r in per_run if r not in known):
        summary.warnings.append(f"rows of run {missing} have no run record")
    return records


def _run_line(record: RunRecord, held: _RunRows) -> dict[str, Any]:
    return {
        "schema": RUN_SCHEMA,
        "run_id": record.run_id,
        "contract_id": record.contract_id,
        "contract_version": record.contract_version,
        "contract_sha256": record.contract_sha256,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "status": record.status,
        "options": record.options,
        "summary": record.summary,
        "rows": held.rows,
        "last_seq": held.last_seq,
        "last_hash": held.last_hash,
    }


def _fields(contract: StoredContract) -> dict[str, Any]:
    return {"sha256": contract.sha256, "path": contract.path, "source": contract.source}


def _line(value: dict[str, Any]) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8") + "\n"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
