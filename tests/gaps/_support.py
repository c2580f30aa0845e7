"""Builders of gap-row drafts and stores, and a way to tamper with a store file.

The same tampering in PostgreSQL is in ``_backends.py``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.gaps.chain import SealedRow, row_hash_of
from verifier.gaps.seals import StoredSeal
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import DuplicateRowId, GapStore, RunRecord, StoredContract

CONTRACT_SOURCE = "contract: demo\nversion: 3\nclaims:\n  - id: cites\n    rubric: regex\n"
CONTRACT_SHA = sha256_hex(CONTRACT_SOURCE)
TRIPLE = {
    "model_id": "claude-haiku-4-5-20251001",
    "prompt_sha": "a" * 64,
    "sampling_sha": "b" * 64,
}


def draft(n: int, run_id: str = "run-1", **changes: Any) -> dict[str, Any]:
    """A valid draft; every fourth one is a judge verdict with its triple."""
    judged = n % 4 == 0
    row: dict[str, Any] = {
        "schema": "verifier.gap-row.v1",
        "row_id": f"{run_id}-row-{n}",
        "run_id": run_id,
        "recorded_at": "2026-11-25T10:00:00.250000Z",
        "contract_id": "demo",
        "contract_version": 3,
        "contract_sha256": CONTRACT_SHA,
        "case_id": f"case-{n // 3}",
        "content_sha256": None,
        "claim_id": "tone" if judged else f"claim-{n % 3}",
        "kind": "judge" if judged else "rubric",
        "status": "pass" if n % 5 else "fail",
        "score": 1.0 if n % 5 else 0.0,
        "reason": f"claim checked on case {n // 3}",
        "evidence": {"judge": dict(TRIPLE), "verdict": "yes"} if judged else {"span": [n, n + 4]},
    }
    row.update(changes)
    return row


def contract_sha(contract_id: str = "demo") -> str:
    """The sha256 of the source ``begin`` stores for ``contract_id``."""
    return sha256_hex(CONTRACT_SOURCE.replace("demo", contract_id))


def begin(
    store: GapStore,
    run_id: str = "run-1",
    started_at: str = "2026-11-25T10:00:00Z",
    options: dict[str, Any] | None = None,
    contract_id: str = "demo",
) -> None:
    store.begin_run(
        run_id,
        contract_id=contract_id,
        contract_version=3,
        contract_sha256=contract_sha(contract_id),
        contract_path=f"contracts/{contract_id}.yaml",
        contract_source=CONTRACT_SOURCE.replace("demo", contract_id),
        started_at=started_at,
        options=options or {"judges": "replay"},
    )


def finish(store: GapStore, run_id: str = "run-1") -> None:
    store.finish_run(run_id, status="finished", finished_at="2026-11-25T10:05:00Z", summary={})


def filled_store(path: Path, rows: int = 30, *, finished: bool = True) -> SqliteStore:
    """A store at ``path`` with one run of ``rows`` rows, appended in batches of 7."""
    store = SqliteStore(path)
    fill(store, rows, finished=finished)
    return store


def fill(store: GapStore, rows: int = 30, *, finished: bool = True) -> None:
    """Gives ``store`` one run of ``rows`` rows, appended in batches of 7."""
    begin(store)
    drafts = [draft(n) for n in range(1, rows + 1)]
    for start in range(0, rows, 7):
        store.append(drafts[start : start + 7])
    if finished:
        finish(store)


def tamper(path: Path, *statements: tuple[str, tuple[Any, ...]] | str) -> None:
    """Runs SQL on the store file as an intruder would: triggers dropped first."""
    conn = sqlite3.connect(path)
    try:
        triggers = ("rows_no_update", "rows_no_delete", "seals_no_update", "seals_no_delete")
        for trigger in (*triggers, "contents_no_update"):
            conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        for statement in statements:
            sql, params = (statement, ()) if isinstance(statement, str) else statement
            conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def column(path: Path, name: str, seq: int) -> Any:
    """One column of one stored row, read straight from the file."""
    conn = sqlite3.connect(path)
    try:
        (value,) = conn.execute(f"SELECT {name} FROM rows WHERE seq = ?", (seq,)).fetchone()
    finally:
        conn.close()
    return value


def stored_body(path: Path, seq: int) -> str:
    return str(column(path, "body", seq))


def forged(row: dict[str, Any]) -> tuple[str, str]:
    """The body and row_hash a forger who knows the scheme computes for ``row``."""
    body = canonical_json({k: v for k, v in row.items() if k != "row_hash"}).decode("utf-8")
    return body, row_hash_of(row["prev_hash"], body)


class ListStore:
    """Just enough of a gap store, over a list of rows, to audit what a test built."""

    location = "memory"

    def __init__(self, rows: list[SealedRow], runs: list[RunRecord]) -> None:
        self.rows = rows
        self._runs = runs

    def iter_rows(self, run_id: str | None = None) -> Iterator[SealedRow]:
        return (r for r in self.rows if run_id is None or r.run_id == run_id)

    def snapshot(self) -> AbstractContextManager[None]:
        return nullcontext()  # nothing else writes the list

    def runs(self) -> list[RunRecord]:
        return list(self._runs)

    def iter_seals(self) -> Iterator[StoredSeal]:
        return iter(())

    def iter_contracts(self) -> Iterator[StoredContract]:
        return iter(())

    def iter_contents(self) -> Iterator[tuple[str, str]]:
        return iter(())

    def head(self) -> StoredSeal | None:
        return None

    def run_seal(self, run_id: str) -> StoredSeal | None:
        return None

    def run(self, run_id: str) -> RunRecord | None:
        return next((r for r in self._runs if r.run_id == run_id), None)

    def duplicate_row_ids(self, run_id: str | None = None) -> list[DuplicateRowId]:
        seqs: dict[str, list[int]] = {}
        for row in self.rows:
            seqs.setdefault(row.row_id, []).append(row.seq)
        return [DuplicateRowId(k, tuple(v)) for k, v in seqs.items() if len(v) > 1]
