"""The ``judge_batches`` table: every Message Batch a run submitted, in order.

A run may need many batches per judge (the API caps a batch's requests and bytes), so
a row is one batch: its run, judge and number (``seq``, counted per run and judge in
submission order), its id, its status and the requests it carries (``custom_id`` to
the request's identity, enough to file a returned reply in the judge cache). A row is
written as soon as the API answers with the batch id, before the batch is polled; a
resumed run reads the rows back to poll those batches again and submit only the
requests no row carries.

Each write seals the row as it now stands (a ``record`` seal keyed by run, judge and
number: ``verifier.gaps.record_seals``), in the same transaction. A resumed run polls
only the batches whose row is what its latest seal recorded: a row edited or added
behind the store's back (a batch id of someone else's, say) is not polled, its
requests are submitted again, and ``verifier audit`` reports the row. Rows an earlier
release wrote are sealed as they are found the first time this release opens the
ledger (they were paid for), and only then: a table once sealed adopts no more rows.

Stores written before a judge could have several batches keyed the table by run and
judge alone; opening such a store rebuilds the table once, each old row becoming its
judge's batch 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import orjson

from verifier.errors import VerifierError
from verifier.gaps.record_seals import key_of, record_payload, record_subject
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.logs import get_logger

__all__ = [
    "LEDGER_COLUMNS",
    "LEDGER_KEY",
    "LEDGER_TABLE",
    "BatchError",
    "BatchLedger",
    "BatchRecord",
]

log = get_logger("verifier.batch")


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


LEDGER_TABLE: Final = "judge_batches"
LEDGER_COLUMNS: Final = ("run_id", "judge", "seq", "batch_id", "status", "items")
"""The ledger's columns, in the order a row is hashed for its seal."""
LEDGER_KEY: Final = ("run_id", "judge", "seq")
"""What a row is sealed under (``verifier.gaps.record_seals.key_of``)."""
_UPSERT: Final = (
    "INSERT INTO judge_batches (run_id, judge, seq, batch_id, status, items)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, judge, seq) DO UPDATE"
    " SET batch_id = excluded.batch_id, status = excluded.status, items = excluded.items"
)

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
            if "seq" not in self._db.columns():
                self._db.execute_script(_UPGRADE)
            # The batches an earlier release recorded were paid for: sealed as found
            # the first time this release opens the ledger, so they can still be resumed.
            self._db.adopt_unsealed(LEDGER_COLUMNS, LEDGER_KEY)
        except BaseException:
            self._db.close()
            raise

    def batches(self, run_id: str, judge: str) -> list[BatchRecord]:
        """The batches of ``judge`` in run ``run_id`` that are as sealed, in the order
        they were submitted (see the module's docstring for the others)."""
        rows = self._db.fetch(
            f"SELECT {', '.join(LEDGER_COLUMNS)} FROM judge_batches"
            " WHERE run_id = ? AND judge = ? ORDER BY seq",
            (run_id, judge),
        )
        seals = self._db.sealed_records() if rows else None
        found = []
        for row in rows:
            values = dict(zip(LEDGER_COLUMNS, row, strict=True))
            if seals is None or not seals.vouches(key_of(values, LEDGER_KEY), values):
                log.warning("batch not sealed: not resumed", judge=judge, seq=values["seq"])
                continue
            found.append(
                BatchRecord(
                    run_id, str(values["batch_id"]), judge, orjson.loads(values["items"]),
                    int(values["seq"]), str(values["status"]),
                )
            )  # fmt: skip
        return found

    def record(self, record: BatchRecord) -> None:
        """Writes ``record`` (replacing a row of the same run, judge and number), sealed."""
        values = {
            "run_id": record.run_id,
            "judge": record.judge,
            "seq": record.seq,
            "batch_id": record.batch_id,
            "status": record.status,
            "items": orjson.dumps(record.items).decode(),
        }
        subject = record_subject(LEDGER_TABLE, key_of(values, LEDGER_KEY))
        self._db.write_sealed(
            [(_UPSERT, tuple(values[name] for name in LEDGER_COLUMNS))],
            [("record", subject, record_payload(LEDGER_TABLE, values))],
        )

    def mark(self, record: BatchRecord, status: str) -> None:
        """Sets the status of ``record``'s batch (the row is written whole, and sealed)."""
        self.record(replace(record, status=status))

    def close(self) -> None:
        """Closes the connection."""
        self._db.close()


def _ledger_error(message: str) -> BatchError:
    return BatchError(f"judge batches: {message}")
