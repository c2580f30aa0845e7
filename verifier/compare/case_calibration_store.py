"""Case-label calibrations kept beside the gap rows, sealed like the judges'.

``verifier calibrate`` stores, for each kind of case label a file gives (thumbs or
score), how far the labels follow the run's case scores, in a ``case_calibrations``
table of the store. Each row is sealed in the store's seal chain when saved (a
``record`` seal under its hash: ``verifier.gaps.record_seals``); a row read back says
whether it is still what its seal recorded, and ``verifier audit`` fails on one that
is not.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from verifier._internal.closing import Closing
from verifier.compare.calibration_store import CalibrationStoreError
from verifier.compare.case_labels import CaseCalibration
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = ["CaseCalibrationStore", "StoredCaseCalibration"]

_COLUMNS: Final = (
    "created_at",
    "run_id",
    "labels_sha256",
    "contract_id",
    "kind",
    "case_score",
    "n",
    "statistics",
)
_TABLE: Final = TableSpec.numbered(
    "case_calibrations",
    " created_at TEXT NOT NULL, run_id TEXT NOT NULL, labels_sha256 TEXT NOT NULL,"
    " contract_id TEXT NOT NULL, kind TEXT NOT NULL, case_score TEXT NOT NULL,"
    " n INTEGER NOT NULL, statistics TEXT NOT NULL)",
)


def _store_error(message: str) -> CalibrationStoreError:
    return CalibrationStoreError(f"case calibrations in {message}")


@dataclass(frozen=True, slots=True)
class StoredCaseCalibration:
    """One kind of case label against one run's case scores, as stored."""

    created_at: str
    run_id: str
    labels_sha256: str
    contract_id: str
    kind: str
    case_score: str
    n: int
    statistics: dict[str, Any]
    sealed: bool = False
    """Whether the row is exactly what its seal recorded when it was saved."""


class CaseCalibrationStore(Closing):
    """The ``case_calibrations`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.
        read_only: Open without creating the file or the table.

    Raises:
        CalibrationStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str | Path, *, read_only: bool = False) -> None:
        self._db = SideTables.open(str(target), _TABLE, error=_store_error, read_only=read_only)
        self.location = self._db.location

    def save(
        self, calibration: CaseCalibration, labels_sha256: str, *, created_at: str | None = None
    ) -> int:
        """Stores the calibration of each kind that set a case against its score;
        returns how many were stored."""
        now = created_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace(
            "+00:00", "Z"
        )
        values = [
            (
                now,
                calibration.run_id,
                labels_sha256,
                calibration.contract_id,
                kind.kind,
                calibration.case_score,
                kind.n,
                orjson.dumps(kind.statistics()).decode(),
            )
            for kind in calibration.kinds
            if kind.n
        ]
        return self._db.insert_sealed(_COLUMNS, values)

    def all(self) -> list[StoredCaseCalibration]:
        """Every stored case calibration, oldest first."""
        records = self._db.records(_COLUMNS)
        found = []
        for values, sealed in zip(records, self._db.sealed(records), strict=True):
            values["statistics"] = orjson.loads(values["statistics"])
            found.append(StoredCaseCalibration(**values, sealed=sealed))
        return found

    def close(self) -> None:
        self._db.close()
