"""Importing a JSONL export into a store: verified whole first, then re-sealed.

The file is read twice. The first pass checks everything and writes nothing: every
row's hash against its body, the link between consecutive rows, the gap-row schema
and the judge-triple rule, each run's row count and last hash, the contracts' hashes,
the end line's totals, and that none of the runs is already in the target store. A
broken export is refused with the line of the first bad row. Only then does the
second pass write.

Imported rows join the target store's own chain: they are sealed again at its end
with new seqs and hashes (the target's chain stays one unbroken chain), and each
keeps where it stood in the chain it came from under ``evidence.resealed_from``, so
the original hash still re-verifies from the row alone (``exported_form``). Rows keep
their ``kind``: this is not the ``imported`` kind of rows brought in from other tools.
Runs keep their ids, times, options, status and summary (ADR 0008).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import VerifierError
from verifier.gaps.row_fields import CHAIN_FIELDS
from verifier.gaps.store import CHAIN_SUMMARY_KEY, GapStore, StoreError
from verifier.transfer._export_check import (
    ExportRefused,
    NotAnExport,
    RunAlreadyInStore,
    check_header,
    numbered_lines,
    read_content,
    read_row,
    verify_export,
)
from verifier.transfer._format import CONTENT_SCHEMA, resealed_evidence

__all__ = [
    "ExportRefused",
    "ImportSummary",
    "NotAnExport",
    "RunAlreadyInStore",
    "check_header",
    "import_jsonl",
]

APPEND_BATCH = 2000
_CONTENT_MARK = CONTENT_SCHEMA.encode("ascii")


@dataclass(slots=True)
class ImportSummary:
    """What an import wrote: rows, and the runs they belong to (in file order)."""

    rows: int = 0
    runs: list[str] = field(default_factory=list)


def import_jsonl(
    path: Path, store: GapStore, *, batch: int = APPEND_BATCH, expect_head: str | None = None
) -> ImportSummary:
    """Verifies a JSONL export whole, then appends its runs and rows to ``store``.

    Args:
        path: A file written by ``export_jsonl`` (``verifier export --format jsonl``).
        store: The target store; none of the export's runs may be in it yet.
        batch: Rows a call to ``store.append`` (one transaction each).
        expect_head: The head the source store published: the export is refused
            unless its seal chain holds it (an export edited and sealed again).

    Returns:
        How many rows were imported, of which runs.

    Raises:
        ExportRefused: The file is not a complete, intact export; nothing was written.
        RunAlreadyInStore: A run of it is already in the store (an ``ExportRefused``
            too); nothing was written.
        StoreError: The store failed while writing; the runs begun are marked
            interrupted, with the reason in their summary.
    """
    staged = verify_export(path, store, expect_head)
    summary = ImportSummary(runs=list(staged.runs))
    begun: list[str] = []
    try:
        for run_id, run in staged.runs.items():
            record = run.record
            contract = staged.contracts[record["contract_sha256"]]
            store.begin_run(
                run_id,
                contract_id=record["contract_id"],
                contract_version=record["contract_version"],
                contract_sha256=record["contract_sha256"],
                contract_path=contract["path"],
                contract_source=contract["source"],
                started_at=record["started_at"],
                options=record["options"],
            )
            begun.append(run_id)
        drafts: list[dict[str, Any]] = []
        contents: dict[str, bytes] = {}
        for row in _row_lines(path):
            if isinstance(row, tuple):
                contents[row[0]] = row[1]
                continue
            drafts.append(_draft(row))
            if len(drafts) >= batch:
                summary.rows += store.append(drafts, contents)
                drafts, contents = [], {}
        summary.rows += store.append(drafts, contents)
        for run_id, run in staged.runs.items():
            record = run.record
            if record["status"] in ("finished", "interrupted"):
                store.finish_run(
                    run_id,
                    status=record["status"],
                    finished_at=record.get("finished_at") or record["started_at"],
                    summary={k: v for k, v in record["summary"].items() if k != CHAIN_SUMMARY_KEY},
                )
            begun.remove(run_id)
    except (VerifierError, ValueError) as exc:
        _interrupt(store, begun, str(exc))
        raise StoreError(
            f"import stopped after {summary.rows} rows: {exc}; its runs "
            f"({', '.join(begun) or 'none begun'}) are marked interrupted"
        ) from exc
    return summary


def _interrupt(store: GapStore, runs: list[str], reason: str) -> None:
    for run_id in runs:
        # The store is failing; the first error is the one to report.
        with suppress(VerifierError):
            store.finish_run(
                run_id,
                status="interrupted",
                finished_at=_now(),
                summary={"import_failed": reason},
            )


def _draft(row: dict[str, Any]) -> dict[str, Any]:
    evidence = resealed_evidence(row)
    draft = {k: v for k, v in row.items() if k not in CHAIN_FIELDS}
    draft["evidence"] = evidence
    return draft


def _row_lines(path: Path) -> Iterator[dict[str, Any] | tuple[str, bytes]]:
    """Every row and content of the file, in file order, each verified again (the file
    may have changed since the first pass)."""
    with path.open("rb") as file:
        for number, line in numbered_lines(file):
            parsed = read_row(number, line)
            if parsed is not None:
                yield parsed
            elif line.startswith(b"{") and _CONTENT_MARK in line:
                value = orjson.loads(line)
                if isinstance(value, dict) and value.get("schema") == CONTENT_SCHEMA:
                    yield read_content(number, value)


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
