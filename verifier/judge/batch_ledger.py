"""The ``judge_batches`` table: every Message Batch a run submitted, in order.

A run may need many batches per judge (the API caps a batch's requests and bytes), so
a row is one batch: its run, judge and number (``seq``, counted per run and judge in
submission order), its id, its status and the requests it carries (``custom_id`` to
the request's identity, enough to file a returned reply in the judge cache). A row is
written as soon as the API answers with the batch id, before the batch is polled; a
resumed run reads the rows back to poll those batches again and submit only the
requests no row carries.

Stores written before a judge could have several batches keyed the table by run and
judge alone; opening such a store rebuilds the table once, each old row becoming its
judge's batch 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import VerifierError
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = ["BatchError", "BatchLedger", "BatchRecord"]


class BatchError(VerifierError):
    """A batch that cannot be run (no batch-capable judge, a failed submission)."""


@dataclass(frozen=True)
class BatchRecord:
    """What the store keeps about one batch of a run, so the run can be resumed.

    Attributes:
        run_id: The run.
        batch_id: The id the API gave the batch.
        judge: The judge whose requests it carries.
        items: ``custom_id`` to the request's identity (for cache entries).
        seq: Its number among the judge's batches of the run, in submission order.
        status: ``submitted`` until its results are collected, then ``ended``.
    """

    run_id: str
    batch_id: str
    judge: str
    items: dict[str, dict[str, Any]]
    seq: int = 0
    status: str = "submitted"


_COLUMNS = (
    " (run_id TEXT NOT NULL, judge TEXT NOT NULL, seq INTEGER NOT NULL,"
    " batch_id TEXT NOT NULL, status TEXT NOT NULL, items TEXT NOT NULL,"
    " PRIMARY KEY (run_id, judge, seq))"
)
_DDL = ("CREATE TABLE IF NOT EXISTS judge_batches" + _COLUMNS,)
_LEDGER = TableSpec("judge_batches", sqlite=_DDL, postgres=_DDL)

# SQL both databases accept; run in one transaction.
_UPGRADE = (
    "CREATE TABLE judge_batches_upgraded" + _COLUMNS,
    "INSERT INTO judge_batches_upgraded (run_id, judge, seq, batch_id, status, items)"
    " SELECT run_id, judge, 0, batch_id, status, items FROM judge_batches",
    "DROP TABLE judge_batches",
    "ALTER TABLE judge_batches_upgraded RENAME TO judge_batches",
)
_COLUMN_NAMES = {
    False: "SELECT name FROM pragma_table_info('judge_batches')",
    True: "SELECT column_name FROM information_schema.columns"
    " WHERE table_schema = current_schema() AND table_name = 'judge_batches'",
}


class BatchLedger:
    """The ``judge_batches`` table of the store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.

    Raises:
        BatchError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str | Path) -> None:
        self._db = SideTables.open(str(target), _LEDGER, error=_ledger_error)
        try:
            columns = {row[0] for row in self._db.fetch(_COLUMN_NAMES[self._db.postgres])}
            if "seq" not in columns:
                self._db.execute_script(_UPGRADE)
        except BaseException:
            self._db.close()
            raise

    def batches(self, run_id: str, judge: str) -> list[BatchRecord]:
        """The batches of ``judge`` in run ``run_id``, in the order they were submitted."""
        rows = self._db.fetch(
            "SELECT batch_id, items, seq, status FROM judge_batches"
            " WHERE run_id = ? AND judge = ? ORDER BY seq",
            (run_id, judge),
        )
        return [
            BatchRecord(run_id, batch_id, judge, orjson.loads(items), int(seq), status)
            for batch_id, items, seq, status in rows
        ]

    def record(self, record: BatchRecord) -> None:
        """Writes ``record`` (replacing a row of the same run, judge and number)."""
        self._db.execute(
            "INSERT INTO judge_batches (run_id, judge, seq, batch_id, status, items)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, judge, seq) DO UPDATE"
            " SET batch_id = excluded.batch_id, status = excluded.status, items = excluded.items",
            (
                record.run_id,
                record.judge,
                record.seq,
                record.batch_id,
                record.status,
                orjson.dumps(record.items).decode(),
            ),
        )

    def mark(self, record: BatchRecord, status: str) -> None:
        """Sets the status of ``record``'s batch."""
        self._db.execute(
            "UPDATE judge_batches SET status = ? WHERE run_id = ? AND judge = ? AND seq = ?",
            (status, record.run_id, record.judge, record.seq),
        )

    def close(self) -> None:
        """Closes the connection."""
        self._db.close()


def _ledger_error(message: str) -> BatchError:
    return BatchError(f"judge batches: {message}")
