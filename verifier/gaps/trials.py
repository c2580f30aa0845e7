"""Judge trials kept beside the gap rows: a successor model asked the stored verdicts
of a pinned judge again, and whether it judges alike (``verifier judge trial``;
ADR 0073).

One row per trial: the judge and the candidate, the decision rule stated before the
calls, the outcome, the figures, and every re-asked verdict with the triple it was
given under. A trial decides whether a judge's model may be switched, so its row is
sealed when saved (a ``record`` seal under the hash of the row:
``verifier.gaps.record_seals``) and ``verifier audit`` reports a row that differs
from its seal, or that no seal names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import Any, Final

import orjson

from verifier._internal.closing import Closing
from verifier.errors import VerifierError
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = ["TrialRow", "TrialStore", "TrialStoreError"]

_COLUMNS: Final = (
    "created_at",
    "trial_id",
    "judge",
    "candidate_model",
    "contract_id",
    "run_id",
    "seed",
    "requested",
    "rule",
    "outcome",
    "figures",
    "verdicts",
)
_CREATE_COLUMNS: Final = (
    " created_at TEXT NOT NULL, trial_id TEXT NOT NULL, judge TEXT NOT NULL,"
    " candidate_model TEXT NOT NULL, contract_id TEXT NOT NULL, run_id TEXT NOT NULL,"
    " seed BIGINT NOT NULL, requested BIGINT NOT NULL, rule TEXT NOT NULL,"
    " outcome TEXT NOT NULL, figures TEXT NOT NULL, verdicts TEXT NOT NULL)"
)
_INDEX: Final = "CREATE INDEX IF NOT EXISTS trials_judge ON trials (judge, candidate_model)"
_TABLE: Final = TableSpec.numbered("trials", _CREATE_COLUMNS, _INDEX)
_JSON_COLUMNS: Final = ("rule", "figures", "verdicts")


class TrialStoreError(VerifierError):
    """A store whose trials cannot be read or written."""


def _store_error(message: str) -> TrialStoreError:
    return TrialStoreError(f"trials in {message}")


@dataclass(frozen=True, slots=True)
class TrialRow:
    """One judge trial as the ``trials`` table keeps it.

    Attributes:
        contract_id: The contract the re-asked verdicts are of (``""``: any).
        run_id: The run they are of (``""``: any).
        requested: The sample size asked for (``--sample``).
        rule: The decision rule, as stated before the calls.
        outcome: ``pass``, ``fail`` or ``undecided`` (the rule could not be applied).
        figures: Agreement, kappa, pass rates and McNemar, overall and per claim.
        verdicts: Each re-asked verdict: case, claim, both verdicts, reasons, triples.
    """

    created_at: str
    trial_id: str
    judge: str
    candidate_model: str
    contract_id: str
    run_id: str
    seed: int
    requested: int
    rule: dict[str, Any]
    outcome: str
    figures: dict[str, Any]
    verdicts: list[dict[str, Any]]


class TrialStore(Closing):
    """The ``trials`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.
        read_only: Open without creating the file or the table.

    Raises:
        TrialStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str, *, read_only: bool = False) -> None:
        self._db = SideTables.open(target, _TABLE, error=_store_error, read_only=read_only)
        self.location = self._db.location

    def save(self, row: TrialRow) -> None:
        """Stores the trial, sealed in the same transaction."""
        values = [_text(name, value) for name, value in zip(_COLUMNS, astuple(row), strict=True)]
        self._db.insert_sealed(_COLUMNS, [values])

    def all(self, *, sealed_only: bool = True) -> list[TrialRow]:
        """Every stored trial, oldest first (only those their seal vouches for, unless
        ``sealed_only`` is false)."""
        found = self._db.records(_COLUMNS)
        if sealed_only:
            found = [r for r, ok in zip(found, self._db.sealed(found), strict=True) if ok]
        return [_row(values) for values in found]

    def sealed_trial(self, trial_id: str, *, judge: str | None = None) -> TrialRow:
        """The sealed trial ``trial_id`` (``last``: the newest, of ``judge`` if given).

        Raises:
            TrialStoreError: No such trial, one its seal no longer vouches for, or one
                of another judge than ``judge``.
        """
        every = [t for t in self.all(sealed_only=False) if t.trial_id == trial_id]
        sealed = self.all()
        if trial_id == "last":
            found = [t for t in sealed if judge is None or t.judge == judge]
            if not found:
                of = f" of judge {judge}" if judge is not None else ""
                raise TrialStoreError(
                    f"no trial{of} in {self.location}: `verifier judge trial` records one"
                )
            return found[-1]
        if not every:
            raise TrialStoreError(
                f"no trial {trial_id} in {self.location}: `verifier judge trial` records one"
            )
        found = [t for t in sealed if t.trial_id == trial_id]
        if len(found) != 1:
            raise TrialStoreError(
                f"trial {trial_id} is not what its seal recorded (edited, or added behind the "
                "store's back): `verifier audit` says more"
            )
        if judge is not None and found[0].judge != judge:
            raise TrialStoreError(f"trial {trial_id} is of judge {found[0].judge}, not {judge}")
        return found[0]

    def close(self) -> None:
        self._db.close()


def _text(name: str, value: Any) -> Any:
    if name in _JSON_COLUMNS:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    return value


def _row(values: Mapping[str, Any]) -> TrialRow:
    fields = dict(values)
    for name in _JSON_COLUMNS:
        fields[name] = orjson.loads(fields[name])
    return TrialRow(**fields)
