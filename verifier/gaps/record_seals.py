"""Seals of the tables beside the rows: every table that decides something is sealed.

Calibrations, test-retest resamples, judge trials and the judge-batch ledger decide what
``check`` credits, whether a judge's model may be switched, and what a resumed run polls
(a stored contract's path, where a recheck reads files, is sealed in each ``begin`` seal
of its runs). Each write to them appends, in its transaction, a seal of kind ``record``
(``verifier.gaps.seals``): its subject is ``TABLE:KEY`` and its body holds the SHA-256
of the row's canonical JSON (``record_sha256``). A table whose rows never change
(calibrations, resamples, trials) keys a row by that hash itself, so each row has a seal
of its own subject; a table whose rows are updated (the batch ledger) keys it by its
primary key, and the row's latest seal is what it must match.

A row is *sealed* when its table's seal for it holds its hash and that seal's own hash
holds: only sealed rows are used. Rows an earlier release wrote have no seal: the
first write of this release to their table seals them as found (``SideTables.
adopt_unsealed``), and until then, the table holding no seal at all, they are used as
before (``SealedRecords.vouches``). Once a table is sealed, a row without a seal was
added behind the store's back. ``verifier audit`` checks every row of every table
here and every ``record`` seal against the rows (``verifier.analyses._record_audit``).

Purges are sealed too: ``purge`` seals which contents it deleted, of which runs, and
when (kind ``purge``), so a content missing from the store is either covered by a
purge or was deleted behind the store's back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier.gaps.seals import SEAL_COLUMNS, StoredSeal, seal_body, seal_intact

__all__ = [
    "PURGE_SEAL_KIND",
    "RECORD_SEAL_KIND",
    "SealedRecords",
    "key_of",
    "purge_payload",
    "purged_contents",
    "purged_of",
    "record_payload",
    "record_sha256",
    "record_subject",
]

RECORD_SEAL_KIND: Final = "record"
PURGE_SEAL_KIND: Final = "purge"

RECORD_SEALS_QUERY: Final = f"SELECT {SEAL_COLUMNS} FROM seals WHERE kind = 'record' ORDER BY n"
"""Every ``record`` seal, oldest first (``SealedRecords.of`` keeps one table's)."""

PURGE_SEALS_QUERY: Final = f"SELECT {SEAL_COLUMNS} FROM seals WHERE kind = 'purge' ORDER BY n"


def record_sha256(values: Mapping[str, Any]) -> str:
    """SHA-256 of a row's canonical JSON (column name to value, as stored)."""
    return sha256_hex(canonical_json(dict(values)))


def key_of(values: Mapping[str, Any], columns: Sequence[str]) -> str:
    """The key of a row of a table whose rows are updated: its one key column's value,
    or the JSON list of its key columns' values."""
    if len(columns) == 1:
        return str(values[columns[0]])
    return orjson.dumps([values[name] for name in columns]).decode()


def record_subject(table: str, key: str) -> str:
    """The subject of a row's seal: ``TABLE:KEY``."""
    return f"{table}:{key}"


def record_payload(table: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What a ``record`` seal commits to: the table and the hash of the row."""
    return {"record": {"table": table, "sha256": record_sha256(values)}}


def purge_payload(runs: Sequence[str], shas: Iterable[str]) -> dict[str, Any]:
    """What a ``purge`` seal commits to: which contents, of which runs, and when (now)."""
    import datetime as dt

    now = dt.datetime.now(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    return {"purge": {"runs": sorted(runs), "contents": sorted(shas), "purged_at": now}}


@dataclass(frozen=True, slots=True)
class SealedRecords:
    """The ``record`` seals of one table, read once.

    Attributes:
        table: The table.
        latest: By key, the hash the key's latest intact seal recorded, with the seal's
            position; a key whose latest seal is not intact maps to ``None``.
        counts: By key, how many seals name it (a table whose rows never change has
            one row per seal).
    """

    table: str
    latest: dict[str, tuple[str, int] | None]
    counts: dict[str, int]

    @classmethod
    def of(cls, table: str, seals: Iterable[StoredSeal]) -> SealedRecords:
        """Reads the seals of ``table`` among ``seals`` (in chain order)."""
        latest: dict[str, tuple[str, int] | None] = {}
        counts: dict[str, int] = {}
        prefix = f"{table}:"
        for seal in seals:
            if seal.kind != RECORD_SEAL_KIND or not seal.subject.startswith(prefix):
                continue
            key = seal.subject[len(prefix) :]
            counts[key] = counts.get(key, 0) + 1
            body = seal_body(seal)
            record = body.get("record") if body is not None else None
            sha = record.get("sha256") if isinstance(record, dict) else None
            intact = seal_intact(seal) and isinstance(sha, str) and record.get("table") == table  # type: ignore[union-attr]
            latest[key] = (str(sha), seal.n) if intact else None
        return cls(table, latest, counts)

    def vouches(self, key: str, values: Mapping[str, Any]) -> bool:
        """Whether the row may be used: it ``holds``, or its table was never sealed
        (every row of it an earlier release's, not adopted yet)."""
        return not self.counts or self.holds(key, values)

    def holds(self, key: str, values: Mapping[str, Any]) -> bool:
        """Whether the row ``values`` under ``key`` is what its latest seal recorded."""
        found = self.latest.get(key)
        return found is not None and found[0] == record_sha256(values)


def purged_contents(seals: Iterable[StoredSeal]) -> dict[str, tuple[int, str]]:
    """Every content an intact ``purge`` seal among ``seals`` covers: by hash, the
    seal's position and when the purge was made."""
    purged: dict[str, tuple[int, str]] = {}
    for seal in seals:
        body = seal_body(seal) if seal.kind == PURGE_SEAL_KIND and seal_intact(seal) else None
        purge = body.get("purge") if body is not None else None
        if not isinstance(purge, dict) or not isinstance(purge.get("contents"), list):
            continue
        for sha in purge["contents"]:
            purged[str(sha)] = (seal.n, str(purge.get("purged_at")))
    return purged


def purged_of(store: object) -> dict[str, tuple[int, str]]:
    """Every content a ``purge`` seal of ``store`` (a gap store) covers, as
    ``purged_contents`` gives them; none for a store that cannot be queried."""
    select = getattr(store, "select", None)
    if select is None:
        return {}
    return purged_contents(StoredSeal(*row) for row in select(PURGE_SEALS_QUERY, ()))
