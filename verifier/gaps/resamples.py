"""Test-retest resamples kept beside the gap rows: a judge asked again, and whether it
said the same (``verifier audit --resample``; ADR 0031).

One row per re-asked verdict, keyed by the judge's stability triple and the claim, so
``verifier check`` can tell a judge whose agreement with itself was measured from one
whose was never measured. They are measurements about verdicts, not verdicts, so
they are not rows of the hash chain; but ``check`` trusts them, so each is sealed
when saved (a ``record`` seal under the hash of its row:
``verifier.gaps.record_seals``), only sealed ones are counted, and ``verifier audit``
reports any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import astuple, dataclass, field
from typing import Any, Final

from verifier._internal.closing import Closing
from verifier.errors import VerifierError
from verifier.gaps.side_tables import SideTables, TableSpec
from verifier.results import wilson_95

__all__ = [
    "ResampleRow",
    "ResampleStore",
    "ResampleStoreError",
    "TripleAgreement",
    "agreement_of_run",
]

_COLUMNS: Final = (
    "created_at",
    "resample_id",
    "run_id",
    "seed",
    "contract_id",
    "case_id",
    "claim_id",
    "model_id",
    "requested_model",
    "prompt_sha",
    "sampling_sha",
    "stored_status",
    "resampled_status",
    "agreed",
)
_CREATE_COLUMNS: Final = (
    " created_at TEXT NOT NULL, resample_id TEXT NOT NULL, run_id TEXT NOT NULL,"
    " seed BIGINT NOT NULL, contract_id TEXT NOT NULL, case_id TEXT NOT NULL,"
    " claim_id TEXT NOT NULL, model_id TEXT NOT NULL, requested_model TEXT NOT NULL,"
    " prompt_sha TEXT NOT NULL, sampling_sha TEXT NOT NULL, stored_status TEXT NOT NULL,"
    " resampled_status TEXT NOT NULL, agreed INTEGER NOT NULL)"
)
_INDEX: Final = (
    "CREATE INDEX IF NOT EXISTS resamples_triple ON resamples (prompt_sha, sampling_sha, claim_id)"
)
_TABLE: Final = TableSpec.numbered("resamples", _CREATE_COLUMNS, _INDEX)


class ResampleStoreError(VerifierError):
    """A store whose resamples cannot be read or written."""


def _store_error(message: str) -> ResampleStoreError:
    return ResampleStoreError(f"resamples in {message}")


@dataclass(frozen=True, slots=True)
class ResampleRow:
    """One stored verdict asked again under the same triple."""

    created_at: str
    resample_id: str
    run_id: str
    seed: int
    contract_id: str
    case_id: str
    claim_id: str
    model_id: str
    requested_model: str
    prompt_sha: str
    sampling_sha: str
    stored_status: str
    resampled_status: str
    agreed: bool


class ResampleStore(Closing):
    """The ``resamples`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.
        read_only: Open without creating the file or the table.

    Raises:
        ResampleStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str, *, read_only: bool = False) -> None:
        self._db = SideTables.open(target, _TABLE, error=_store_error, read_only=read_only)
        self.location = self._db.location
        if not read_only:
            self._db.adopt_unsealed(_COLUMNS)  # an earlier release's, sealed as found

    def save(self, rows: Iterable[ResampleRow]) -> int:
        """Stores ``rows``; returns how many were stored."""
        values = [(*astuple(r)[:-1], int(r.agreed)) for r in rows]
        return self._db.insert_sealed(_COLUMNS, values)

    def measured(
        self, *, contract_id: str, claim_id: str, model: str, prompt_sha: str, sampling_sha: str
    ) -> int:
        """How many verdicts of a claim were re-asked under a triple whose served or
        requested model is ``model`` (0 when none, or no table yet); only sealed rows
        count (an edited, forged or pre-seal row is no measurement to trust)."""
        found = self._db.records(
            _COLUMNS,
            where="contract_id = ? AND claim_id = ? AND prompt_sha = ? AND sampling_sha = ?"
            " AND (model_id = ? OR requested_model = ?)",
            params=(contract_id, claim_id, prompt_sha, sampling_sha, model, model),
        )
        return sum(self._db.sealed(found, each_seal_once=True))

    def all(self) -> list[ResampleRow]:
        """Every stored resample, oldest first."""
        return [_row(values) for values in self._db.records(_COLUMNS)]

    def close(self) -> None:
        self._db.close()


@dataclass(slots=True)
class TripleAgreement:
    """The retests of one judge triple: how many, and how many said the same."""

    model_id: str
    prompt_sha: str
    sampling_sha: str
    claims: set[str] = field(default_factory=set)
    asked: int = 0
    agreed: int = 0

    def as_dict(self) -> dict[str, Any]:
        low, high = wilson_95(self.agreed, self.asked)
        return {
            "model_id": self.model_id,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
            "claims": sorted(self.claims),
            "asked": self.asked,
            "agreed": self.agreed,
            "agreement": round(self.agreed / self.asked, 6) if self.asked else None,
            "agreement_ci95": [round(low, 6), round(high, 6)],
        }


def agreement_of_run(rows: Iterable[ResampleRow], run_id: str) -> list[TripleAgreement]:
    """The retests of run ``run_id`` among ``rows``, per triple in the order first met."""
    triples: dict[tuple[str, str, str], TripleAgreement] = {}
    for row in rows:
        if row.run_id != run_id:
            continue
        key = (row.model_id, row.prompt_sha, row.sampling_sha)
        entry = triples.get(key)
        if entry is None:
            entry = triples[key] = TripleAgreement(*key)
        entry.claims.add(row.claim_id)
        entry.asked += 1
        entry.agreed += row.agreed
    return list(triples.values())


def _row(values: Mapping[str, Any]) -> ResampleRow:
    fields = dict(values)
    fields["agreed"] = bool(fields["agreed"])
    return ResampleRow(**fields)
