"""Calibrations kept beside the gap rows, and the check that a judge has a good one.

``verifier calibrate`` stores each claim's agreement with human labels in a
``calibrations`` table of the SQLite store file, keyed by the judge's stability triple
(and the claim, since a calibration vouches for one instruction under one judge).
``verifier check`` then warns about each judge claim whose judge has no good one
(``verifier.compare.calibration_check``).

Each calibration is sealed in the store's seal chain when saved (a ``record`` seal
under the hash of its row: ``verifier.gaps.record_seals``), and a calibration read
back says whether it is still what its seal recorded (``StoredCalibration.sealed``):
``check`` credits only sealed ones, and ``verifier audit`` reports any other. Rows
an earlier release saved are sealed as found when this release first opens the table
to write (``calibrate``); until then they are not credited, since nothing tells them
from a row forged behind the store's back.

Each calibration also keeps the wording of the claim it measured (``claim_text``,
``claim_sha``; ``verifier.compare.calibration_claim``). Tables made before that have
neither column: opened to write, the store adds both (``NULL`` in the older rows);
opened read-only, it reads those rows with no wording.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from verifier._internal.closing import Closing
from verifier.compare.calibration_report import CalibrationReport, ClaimCalibration
from verifier.errors import VerifierError
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = [
    "CalibrationStore",
    "CalibrationStoreError",
    "StoredCalibration",
]

_COLUMNS: Final = (
    "created_at",
    "run_id",
    "labels_sha256",
    "contract_id",
    "claim_id",
    "model_id",
    "requested_model",
    "prompt_sha",
    "sampling_sha",
    "n",
    "kappa",
    "agreement",
    "statistics",
)
# Added after the table's first release: NULL in the rows made before (see ``_added``).
_WORDING_COLUMNS: Final = ("claim_sha", "claim_text")
_CREATE_COLUMNS: Final = (
    " created_at TEXT NOT NULL, run_id TEXT NOT NULL, labels_sha256 TEXT NOT NULL,"
    " contract_id TEXT NOT NULL, claim_id TEXT NOT NULL, model_id TEXT NOT NULL,"
    " requested_model TEXT NOT NULL, prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL,"
    " n INTEGER NOT NULL, kappa DOUBLE PRECISION, agreement DOUBLE PRECISION,"
    " statistics TEXT NOT NULL, claim_sha TEXT, claim_text TEXT)"
)
_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS calibrations_triple"
    " ON calibrations (prompt_sha, sampling_sha, claim_id)"
)
_TABLE: Final = TableSpec.numbered("calibrations", _CREATE_COLUMNS, _INDEX)


class CalibrationStoreError(VerifierError):
    """A store whose calibrations cannot be read or written."""


def _store_error(message: str) -> CalibrationStoreError:
    return CalibrationStoreError(f"calibrations in {message}")


@dataclass(frozen=True, slots=True)
class StoredCalibration:
    """One claim's calibration under one judge triple, as stored."""

    created_at: str
    run_id: str
    labels_sha256: str
    contract_id: str
    claim_id: str
    model_id: str
    requested_model: str
    prompt_sha: str
    sampling_sha: str
    n: int
    kappa: float | None
    agreement: float | None
    statistics: dict[str, Any]
    claim_sha: str | None = None
    claim_text: str | None = None
    sealed: bool = False
    """Whether the row is exactly what its seal recorded when it was saved: an edited or
    forged row is not, nor an earlier release's not sealed since."""


class CalibrationStore(Closing):
    """The ``calibrations`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.
        read_only: Open without creating the file or the table (for ``verifier check``).

    Raises:
        CalibrationStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str | Path, *, read_only: bool = False) -> None:
        self._db = SideTables.open(str(target), _TABLE, error=_store_error, read_only=read_only)
        self.location = self._db.location
        self._columns: tuple[str, ...] = _COLUMNS
        if self._db.table_exists():
            self._columns += self._added(read_only=read_only)
            if not read_only:
                # An earlier release's calibrations, sealed as found (ADR 0067).
                self._db.adopt_unsealed(self._columns)

    def _added(self, *, read_only: bool) -> tuple[str, ...]:
        """The wording columns the table has, adding them first unless ``read_only``."""
        have = self._db.columns()
        missing = [name for name in _WORDING_COLUMNS if name not in have]
        if missing and not read_only:
            # Another process may add them first: the columns read after tell.
            with contextlib.suppress(CalibrationStoreError):
                self._db.execute_script(
                    [f"ALTER TABLE calibrations ADD COLUMN {name} TEXT" for name in missing]
                )
            have = self._db.columns()
        return tuple(name for name in _WORDING_COLUMNS if name in have)

    def save(self, report: CalibrationReport, *, created_at: str | None = None) -> int:
        """Stores each claim's calibration in ``report``; returns how many were stored."""
        now = created_at or dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace(
            "+00:00", "Z"
        )
        values = [
            (
                now,
                report.run_id,
                report.labels_sha256,
                c.contract_id,
                c.claim_id,
                c.model_id,
                c.requested_model,
                c.prompt_sha,
                c.sampling_sha,
                c.n,
                _number(c.kappa),
                _number(c.agreement),
                orjson.dumps(_statistics(report, c)).decode(),
                c.claim_sha,
                c.claim_wording,
            )
            for c in report.claims
        ]
        return self._db.insert_sealed((*_COLUMNS, *_WORDING_COLUMNS), values)

    def latest(
        self, *, contract_id: str, claim_id: str, model: str, prompt_sha: str, sampling_sha: str
    ) -> StoredCalibration | None:
        """The newest calibration of a claim under a triple whose served or requested
        model is ``model``, one ``model`` served first (its ``model_id`` says which it
        is); ``None`` when there is none (or no table yet)."""
        found = self.candidates(
            contract_id=contract_id,
            claim_id=claim_id,
            model=model,
            prompt_sha=prompt_sha,
            sampling_sha=sampling_sha,
        )
        return found[0] if found else None

    def candidates(
        self, *, contract_id: str, claim_id: str, model: str, prompt_sha: str, sampling_sha: str
    ) -> list[StoredCalibration]:
        """Every calibration ``latest`` chooses from, in its order of preference."""
        found = self._db.records(
            self._columns,
            where="contract_id = ? AND claim_id = ? AND prompt_sha = ? AND sampling_sha = ?"
            " AND (model_id = ? OR requested_model = ?)",
            params=(contract_id, claim_id, prompt_sha, sampling_sha, model, model, model),
            order="CASE WHEN model_id = ? THEN 0 ELSE 1 END, id DESC",
        )
        return self._read(found)

    def run_contract(self, run_id: str) -> str | None:
        """The source of the contract run ``run_id`` checked, as the store kept it;
        ``None`` when the store no longer holds the run (or holds no runs at all)."""
        if not (self._db.has_table("runs") and self._db.has_table("contracts")):
            return None
        rows = self._db.fetch(
            "SELECT c.source FROM runs r JOIN contracts c ON c.sha256 = r.contract_sha256"
            " WHERE r.run_id = ?",
            (run_id,),
        )
        return str(rows[0][0]) if rows else None

    def all(self) -> list[StoredCalibration]:
        """Every stored calibration, oldest first."""
        return self._read(self._db.records(self._columns))

    def close(self) -> None:
        self._db.close()

    def _read(self, records: list[dict[str, Any]]) -> list[StoredCalibration]:
        found = []
        for values, sealed in zip(records, self._db.sealed(records), strict=True):
            values["statistics"] = orjson.loads(values["statistics"])
            found.append(StoredCalibration(**values, sealed=sealed))
        return found


def _statistics(report: CalibrationReport, claim: ClaimCalibration) -> dict[str, Any]:
    """A claim's figures as stored, with the trial they were measured in, if any."""
    statistics = claim.statistics()
    if report.trial_id:
        statistics["trial_id"] = report.trial_id
    return statistics


def _number(value: float | None) -> float | None:
    """A statistic as the table's DOUBLE column gives it back (an int would be hashed
    as ``1``, read back as ``1.0``, and no longer match its seal)."""
    return None if value is None else float(value)
