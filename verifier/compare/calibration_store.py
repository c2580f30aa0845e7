"""Calibrations kept beside the gap rows, and the check that a judge has a good one.

``verifier calibrate`` stores each claim's agreement with human labels in a
``calibrations`` table of the SQLite store file, keyed by the judge's stability triple
(and the claim, since a calibration vouches for one instruction under one judge).
``verifier check`` then warns about each judge claim whose judge has no calibration on
at least ``MIN_CALIBRATED_CASES`` labelled cases, or one with a kappa under
``MIN_KAPPA``.

A contract names the model it requests, while a calibration records the model that
was served; a calibration matches when either equals the contract's model. The
triple's other two parts are computed from the contract without calling anyone: the
template's bytes and the sampling parameters that would be sent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from verifier._closing import Closing
from verifier.compare.calibrate import landis_koch_band
from verifier.compare.calibration_report import CalibrationReport
from verifier.contract.load import LoadedContract
from verifier.contract.models import JudgeClaim
from verifier.errors import Diagnostic, VerifierError
from verifier.gaps.resamples import ResampleStore, ResampleStoreError
from verifier.gaps.side_tables import SideTables, TableSpec, sqlite_path

__all__ = [
    "MIN_CALIBRATED_CASES",
    "MIN_KAPPA",
    "CalibrationCheck",
    "CalibrationStore",
    "CalibrationStoreError",
    "StoredCalibration",
]

MIN_CALIBRATED_CASES: Final = 20
"""Labelled cases a calibration needs before it is trusted (the evaluation template's
held-out set of at least 20 examples)."""

MIN_KAPPA: Final = 0.6
"""Lowest Cohen's kappa accepted: above it Landis & Koch call agreement substantial."""

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
_CREATE_COLUMNS: Final = (
    " created_at TEXT NOT NULL, run_id TEXT NOT NULL, labels_sha256 TEXT NOT NULL,"
    " contract_id TEXT NOT NULL, claim_id TEXT NOT NULL, model_id TEXT NOT NULL,"
    " requested_model TEXT NOT NULL, prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL,"
    " n INTEGER NOT NULL, kappa DOUBLE PRECISION, agreement DOUBLE PRECISION,"
    " statistics TEXT NOT NULL)"
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
                c.kappa,
                c.agreement,
                orjson.dumps(c.statistics()).decode(),
            )
            for c in report.claims
        ]
        placeholders = ", ".join("?" for _ in _COLUMNS)
        self._db.execute_many(
            f"INSERT INTO calibrations ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values
        )
        return len(values)

    def latest(
        self, *, contract_id: str, claim_id: str, model: str, prompt_sha: str, sampling_sha: str
    ) -> StoredCalibration | None:
        """The newest calibration of a claim under a triple whose served or requested
        model is ``model``; ``None`` when there is none (or no table yet)."""
        query = (
            f"SELECT {', '.join(_COLUMNS)} FROM calibrations WHERE contract_id = ?"
            " AND claim_id = ? AND prompt_sha = ? AND sampling_sha = ?"
            " AND (model_id = ? OR requested_model = ?) ORDER BY id DESC LIMIT 1"
        )
        params = (contract_id, claim_id, prompt_sha, sampling_sha, model, model)
        if not self._db.table_exists():
            return None
        rows = self._db.fetch(query, params)
        return _stored(rows[0]) if rows else None

    def all(self) -> list[StoredCalibration]:
        """Every stored calibration, oldest first."""
        if not self._db.table_exists():
            return []
        rows = self._db.fetch(f"SELECT {', '.join(_COLUMNS)} FROM calibrations ORDER BY id")
        return [_stored(row) for row in rows]

    def close(self) -> None:
        self._db.close()


def _stored(row: tuple[Any, ...]) -> StoredCalibration:
    values = dict(zip(_COLUMNS, row, strict=True))
    values["statistics"] = orjson.loads(values["statistics"])
    return StoredCalibration(**values)


def _judge_parts(loaded: LoadedContract, claim: JudgeClaim) -> tuple[str, str] | None:
    """The ``prompt_sha`` and ``sampling_sha`` a claim's judge would be called with."""
    from verifier.contract.judge_template import TemplateError, load_template
    from verifier.judge.prompt import has_reference, judge_prompt_sha, verdict_kind
    from verifier.llm.providers.registry import sent_sampling
    from verifier.llm.triple import sampling_sha_of

    spec = loaded.contract.judges.get(claim.judge)
    if spec is None:
        return None
    try:
        kind = verdict_kind(claim)
        template = load_template(spec, loaded.files, kind, reference=has_reference(claim))
        sampling = sent_sampling(spec.provider, spec.sampling)
    except (TemplateError, ValueError):
        return None  # the contract lint reports these
    return judge_prompt_sha(template, kind), sampling_sha_of(sampling)


class CalibrationCheck:
    """``verifier check``'s warnings about judges without a trustworthy calibration.

    Args:
        target: The gap store (a SQLite file, ``sqlite:///`` or ``postgresql://`` URL).
        note: Called once with a line to show when calibrations cannot be checked
            (no store file, or a store that cannot be read).
    """

    def __init__(self, target: str, note: Callable[[str], None]) -> None:
        self.target = target
        self._note = note
        self._noted = False

    def _say_once(self, text: str) -> None:
        if not self._noted:
            self._noted = True
            self._note(text)

    def warnings(self, loaded: LoadedContract) -> list[Diagnostic]:
        """One warning per judge claim of ``loaded`` lacking a sufficient calibration."""
        claims = [(i, c) for i, c in enumerate(loaded.contract.claims) if isinstance(c, JudgeClaim)]
        if not claims:
            return []
        path = sqlite_path(self.target)
        if path is not None and not Path(path).is_file():
            self._say_once(f"no calibration store found at {path}; judge calibrations not checked")
            return []
        out: list[Diagnostic] = []
        try:
            with (
                CalibrationStore(self.target, read_only=True) as store,
                ResampleStore(self.target, read_only=True) as resamples,
            ):
                for index, claim in claims:
                    problem = self._problem(loaded, claim, store, resamples)
                    if problem is not None:
                        line, col = loaded.positions.of(("claims", index))
                        out.append(Diagnostic(str(loaded.path), line, col, problem, "warning"))
        except (CalibrationStoreError, ResampleStoreError) as exc:
            self._say_once(f"{exc}; judge calibrations not checked")
            return []
        return out

    @staticmethod
    def _problem(
        loaded: LoadedContract,
        claim: JudgeClaim,
        store: CalibrationStore,
        resamples: ResampleStore,
    ) -> str | None:
        parts = _judge_parts(loaded, claim)
        if parts is None:
            return None
        spec = loaded.contract.judges[claim.judge]
        triple = {
            "contract_id": loaded.contract.contract,
            "claim_id": claim.id,
            "model": spec.model,
            "prompt_sha": parts[0],
            "sampling_sha": parts[1],
        }
        found = store.latest(**triple)
        who = f"claim {claim.id!r}: judge {claim.judge!r} ({spec.model}, prompt {parts[0][:12]})"
        if found is None:
            # Every judge claim counts toward pass/fail (a weight is above 0), so a
            # judge whose agreement was never measured, against people or against
            # itself (ADR 0031), gates a merge on unmeasured noise.
            if resamples.measured(**triple):
                return None
            return (
                f"{who} has no calibration against human labels and no measured "
                "test-retest agreement, yet decides pass/fail; run `verifier calibrate "
                "--labels FILE` on a run of this contract, or `verifier audit --resample N "
                "--run RUN`"
            )
        if found.n < MIN_CALIBRATED_CASES:
            return (
                f"{who} is calibrated on {found.n} labelled cases only "
                f"(run {found.run_id}); at least {MIN_CALIBRATED_CASES} are needed"
            )
        if found.kappa is None:
            return (
                f"{who} has an undefined kappa in its calibration (run {found.run_id}): "
                "labels and verdicts used one value only"
            )
        if found.kappa < MIN_KAPPA:
            band = landis_koch_band(found.kappa)
            return (
                f"{who} agrees with human labels at kappa {found.kappa:.2f} ({band}) "
                f"in its calibration (run {found.run_id}), under {MIN_KAPPA}"
            )
        return None
