"""Judge successions kept beside the gap rows: a judge's model (and template) moved
to another after a trial, and what the trial found (``verifier judge switch``).

One row per succession: the judge, the triples it was stored under before and the
triples its candidate answered under in the trial, the trial, its rule, outcome and
overall figures, and the reason a failed or undecided trial was accepted, if it was.
A succession tells every reader of the rows that a change of triple was measured and
chosen, so its row is sealed when saved, like a trial's (a ``record`` seal under the
hash of the row: ``verifier.gaps.record_seals``), and ``verifier audit`` reports a
row that differs from its seal, or that no seal names.

``Lineage`` is what the readers ask: which succession, if any, explains a judge moving
from one triple to another (directly or through a chain of successions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass, field
from typing import Any, Final

import orjson

from verifier._internal.closing import Closing
from verifier.errors import VerifierError
from verifier.gaps.record_seals import RECORD_SEALS_QUERY, SealedRecords, record_sha256
from verifier.gaps.seals import StoredSeal
from verifier.gaps.side_tables import SideTables, TableSpec

__all__ = [
    "Lineage",
    "SuccessionRow",
    "SuccessionStore",
    "SuccessionStoreError",
    "Triple",
]

Triple = tuple[str, str, str]
"""A judge's stability triple: model id, prompt sha, sampling sha."""

Select = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
"""An open store's read query (``SqlStore.select``): inside its snapshot, the snapshot's."""

_COLUMNS: Final = (
    "created_at",
    "succession_id",
    "judge",
    "contract_id",
    "trial_id",
    "old_triples",
    "new_triples",
    "rule",
    "outcome",
    "figures",
    "accepted_failed",
    "written",
    "asked_models",
)
_CREATE_COLUMNS: Final = (
    " created_at TEXT NOT NULL, succession_id TEXT NOT NULL, judge TEXT NOT NULL,"
    " contract_id TEXT NOT NULL, trial_id TEXT NOT NULL, old_triples TEXT NOT NULL,"
    " new_triples TEXT NOT NULL, rule TEXT NOT NULL, outcome TEXT NOT NULL,"
    " figures TEXT NOT NULL, accepted_failed TEXT NOT NULL, written TEXT NOT NULL,"
    " asked_models TEXT NOT NULL)"
)
_INDEX: Final = "CREATE INDEX IF NOT EXISTS successions_judge ON successions (judge)"
_TABLE: Final = TableSpec.numbered("successions", _CREATE_COLUMNS, _INDEX)
_JSON_COLUMNS: Final = ("old_triples", "new_triples", "rule", "figures", "asked_models")


class SuccessionStoreError(VerifierError):
    """A store whose successions cannot be read or written."""


def _store_error(message: str) -> SuccessionStoreError:
    return SuccessionStoreError(f"successions in {message}")


@dataclass(frozen=True, slots=True)
class SuccessionRow:
    """One succession as the ``successions`` table keeps it.

    Attributes:
        created_at: When it was recorded (UTC, ISO 8601).
        succession_id: Its id.
        judge: The judge's name in its contracts.
        contract_id: The contract the trial was limited to (``""``: any).
        trial_id: The trial that measured the successor.
        old_triples: The triples the trial's verdicts were stored under.
        new_triples: The triples the candidate answered the trial under.
        rule: The trial's decision rule, as stated before its calls.
        outcome: The trial's outcome: ``pass``, ``fail`` or ``undecided``.
        figures: The trial's overall figures (agreement, kappa and its interval, pass
            rates, the difference and its interval, McNemar p).
        accepted_failed: Why a trial that did not pass was accepted (``""``: it passed).
        written: The contract file the switch rewrote (``""``: none).
        asked_models: The models a contract asks for, ``old`` and ``new`` (a triple
            names the model that served, which differs for an alias or a deployment).
    """

    created_at: str
    succession_id: str
    judge: str
    contract_id: str
    trial_id: str
    old_triples: list[list[str]]
    new_triples: list[list[str]]
    rule: dict[str, Any]
    outcome: str
    figures: dict[str, Any]
    accepted_failed: str
    written: str
    asked_models: dict[str, list[str]] = field(default_factory=dict)

    @property
    def old(self) -> frozenset[Triple]:
        return frozenset(_triple(t) for t in self.old_triples)

    @property
    def new(self) -> frozenset[Triple]:
        return frozenset(_triple(t) for t in self.new_triples)

    def moves_to(self, model: str) -> bool:
        """Whether the judge moved to ``model``, as its contract asks it or as served."""
        return model in self.asked_models.get("new", []) or any(t[0] == model for t in self.new)

    def moves_off(self, model: str) -> bool:
        """Whether the judge moved off ``model`` (and not onto it again)."""
        old = model in self.asked_models.get("old", []) or any(t[0] == model for t in self.old)
        return old and not self.moves_to(model)

    def pinned(self) -> str:
        """The model a contract pins for the successor (as asked, not as served)."""
        asked = self.asked_models.get("new", [])
        return asked[0] if asked else self.models()[1]

    def models(self) -> tuple[str, str]:
        """The old and new model ids, as ``a, b`` (several are joined by ``/``)."""
        return _models(self.old), _models(self.new)

    def agreement(self) -> str:
        """What the trial found of agreement: ``agreement A, kappa K [LOW, HIGH]``."""
        f = self.figures
        kappa = f"kappa {_num(f.get('kappa'))}"
        if f.get("kappa_ci") or f.get("kappa_ci95"):
            kappa += f" {_interval(f.get('kappa_ci') or f.get('kappa_ci95'), '.3f')}"
        return f"agreement {_num(f.get('agreement'))}, {kappa}"

    def summary(self) -> str:
        """The succession in one line: who moved where, and what the trial found."""
        before, after = self.models()
        f = self.figures
        parts = [self.agreement()]
        shift = f.get("difference")
        if shift is not None:
            parts.append(
                f"pass-rate shift {shift:+.3f} "
                f"{_interval(f.get('difference_ci') or f.get('difference_ci95'), '+.3f')}"
            )
        accepted = f"; accepted: {self.accepted_failed}" if self.accepted_failed else ""
        return (
            f"succession {self.succession_id} of judge {self.judge}: {before} -> {after} "
            f"(trial {self.trial_id}, {self.outcome}: {', '.join(parts)}{accepted})"
        )


class SuccessionStore(Closing):
    """The ``successions`` table of a store (its SQLite file or PostgreSQL schema).

    Args:
        target: The store, as ``--store`` names it.
        read_only: Open without creating the file or the table.

    Raises:
        SuccessionStoreError: The store cannot be reached or refuses the table.
    """

    def __init__(self, target: str, *, read_only: bool = False) -> None:
        self._db = SideTables.open(target, _TABLE, error=_store_error, read_only=read_only)
        self.location = self._db.location

    def save(self, row: SuccessionRow) -> None:
        """Stores the succession, sealed in the same transaction."""
        values = [_text(name, value) for name, value in zip(_COLUMNS, astuple(row), strict=True)]
        self._db.insert_sealed(_COLUMNS, [values])

    def all(self, *, sealed_only: bool = True) -> list[SuccessionRow]:
        """Every stored succession, oldest first (only those their seal vouches for,
        unless ``sealed_only`` is false)."""
        found = self._db.records(_COLUMNS)
        if sealed_only:
            found = [r for r, ok in zip(found, self._db.sealed(found), strict=True) if ok]
        return [_row(values) for values in found]

    def lineage(self) -> Lineage:
        """The sealed successions, as readers ask them."""
        return Lineage(tuple(self.all()))

    def close(self) -> None:
        self._db.close()


@dataclass(frozen=True, slots=True)
class Lineage:
    """A store's sealed successions, oldest first."""

    rows: tuple[SuccessionRow, ...] = ()

    @classmethod
    def read(cls, target: str) -> Lineage:
        """The sealed successions of the store ``target`` (none when it keeps none).

        Raises:
            SuccessionStoreError: The store cannot be read.
        """
        with SuccessionStore(target, read_only=True) as store:
            return store.lineage()

    @classmethod
    def from_select(cls, select: Select, table_columns: Callable[[str], Sequence[str]]) -> Lineage:
        """The sealed successions read through an open store (``select`` and
        ``table_columns`` of ``SqlStore``), so a reader inside the store's snapshot (the
        audit) sees the successions of that snapshot.
        """
        if not table_columns(_TABLE.name):
            return cls()
        found = [
            dict(zip(_COLUMNS, values, strict=True))
            for values in select(f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE.name} ORDER BY id", ())
        ]
        seals = (
            [StoredSeal(*row) for row in select(RECORD_SEALS_QUERY, ())]
            if table_columns("seals")
            else []
        )
        sealed = SealedRecords.of(_TABLE.name, seals)
        return cls(tuple(_row(v) for v in found if sealed.holds(record_sha256(v), v)))

    @classmethod
    def of_store(cls, store: object) -> Lineage:
        """The sealed successions of an open store, read through it (inside its
        snapshot, when one is open); none for a store that keeps no tables beside its
        rows. Every reader that holds the store asks here."""
        select = getattr(store, "select", None)
        columns_of = getattr(store, "table_columns", None)
        if select is None or columns_of is None:
            return cls()
        return cls.from_select(select, columns_of)

    def __bool__(self) -> bool:
        return bool(self.rows)

    def of_contract(self, contract_id: str) -> Lineage:
        """The successions that hold for the judges of ``contract_id``: those of its
        trials and those of trials not limited to one contract."""
        return Lineage(tuple(r for r in self.rows if r.contract_id in ("", contract_id)))

    def of_judge(self, judge: str) -> list[SuccessionRow]:
        return [r for r in self.rows if r.judge == judge]

    def successor(self, judge: str | None, triple: Triple) -> SuccessionRow | None:
        """The newest succession that moved ``judge`` (any judge: ``None``) off
        ``triple``."""
        for row in reversed(self.rows):
            if (judge is None or row.judge == judge) and triple in row.old:
                return row
        return None

    def between(self, judge: str | None, old: Triple, new: Triple) -> list[SuccessionRow]:
        """The successions that lead ``judge`` from ``old`` to ``new``, in order (one
        for a direct succession, several for a chain; empty when none does)."""
        rows = [r for r in self.rows if judge is None or r.judge == judge]
        # Breadth first over triples, each succession used once.
        paths: dict[Triple, list[SuccessionRow]] = {old: []}
        frontier = [old]
        while frontier:
            nxt: list[Triple] = []
            for at in frontier:
                for row in rows:
                    if at not in row.old:
                        continue
                    for reached in row.new:
                        if reached not in paths:
                            paths[reached] = [*paths[at], row]
                            nxt.append(reached)
            frontier = nxt
        return paths.get(new, []) if new != old else []


def _triple(value: Sequence[str]) -> Triple:
    model, prompt, sampling = value
    return (str(model), str(prompt), str(sampling))


def _models(triples: frozenset[Triple]) -> str:
    return "/".join(sorted({t[0] for t in triples})) or "?"


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _interval(value: Any, spec: str) -> str:
    if not value:
        return "[n/a]"
    low, high = value
    return f"[{low:{spec}}, {high:{spec}}]"


def _text(name: str, value: Any) -> Any:
    if name in _JSON_COLUMNS:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    return value


def _row(values: Mapping[str, Any]) -> SuccessionRow:
    fields = dict(values)
    for name in _JSON_COLUMNS:
        fields[name] = orjson.loads(fields[name])
    return SuccessionRow(**fields)
