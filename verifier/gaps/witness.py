"""Witness files: a store's heads kept where the store's writers cannot rewrite them.

A store that holds everything it needs to verify itself cannot tell a consistent
rewrite from its real history: a verdict flipped with every later hash and seal
computed again, a cut tail, a dropped newest run or an emptied store all audit clean.
Only a head kept elsewhere catches them (ADR 0015). A witness file makes keeping it a
habit: ``verifier run --witness FILE`` appends one JSON line per run naming the seal
the run left and its hash, and ``verifier audit --witness FILE`` checks that the seal
chain still holds each of those hashes at the position witnessed.

A line says enough to be checked later without the run's output::

    {"schema": "verifier.witness.v1", "run_id": "...", "store": "...",
     "seal": 14, "rows": 60, "head": "<sha256 hex>", "recorded_at": "..."}

``store`` is the store's location as the store states it (a PostgreSQL URL without
its password); ``seal`` and ``rows`` are the seal's position and the last row it
commits to. A shard that does not end its run adds ``shard`` (``K/N``).

Lines are appended with one ``write`` on a descriptor opened ``O_APPEND``, so runs
writing one file at once never interleave or overwrite a line; nothing ever rewrites
the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import VerifierError
from verifier.gaps.seals import StoredSeal, seal_intact
from verifier.gaps.store import GapStore

__all__ = [
    "WITNESS_SCHEMA",
    "WitnessCheck",
    "WitnessEntry",
    "WitnessError",
    "append_witness",
    "check_witness",
    "read_witness",
    "touch_witness",
    "witness_entry",
]

WITNESS_SCHEMA = "verifier.witness.v1"

_HEX64 = re.compile(r"[0-9a-f]{64}")
_TEXT_KEYS = ("run_id", "store", "recorded_at")


class WitnessError(VerifierError):
    """A witness file that cannot be written or read (one located line)."""


@dataclass(frozen=True, slots=True)
class WitnessEntry:
    """One witnessed head: the seal a run left, and what it commits to.

    Attributes:
        run_id: The run that left the seal.
        store: The store's location as it states it (never a password).
        seal: The seal's position in the store's seal chain.
        rows: The last row the seal commits to (its seq; 0: none).
        head: The seal's hash.
        recorded_at: When the line was written (UTC, ISO 8601).
        shard: ``K/N`` for a shard that did not end its run, else ``None``.
    """

    run_id: str
    store: str
    seal: int
    rows: int
    head: str
    recorded_at: str
    shard: str | None = None

    def line(self) -> bytes:
        """The entry as one JSON line, newline included."""
        fields: dict[str, Any] = {
            "schema": WITNESS_SCHEMA,
            "run_id": self.run_id,
            "store": self.store,
            "seal": self.seal,
            "rows": self.rows,
            "head": self.head,
            "recorded_at": self.recorded_at,
        }
        if self.shard is not None:
            fields["shard"] = self.shard
        # Keys in a reader's order rather than sorted: the file is meant to be read.
        return orjson.dumps(fields) + b"\n"


def witness_entry(store: GapStore, run_id: str, *, shard: str | None = None) -> WitnessEntry | None:
    """The head to witness for a run that just ended, or a shard that just finished.

    A run that ended is witnessed by the seal of its end (the head it printed); a
    shard that did not end its run, by the store's last seal, which commits to the
    shard's rows. ``None`` when the store holds no seal.
    """
    sealed = store.run_seal(run_id)
    if sealed is None or sealed.kind != "end":
        sealed = store.head()
        if sealed is None:
            return None
    else:
        shard = None  # the run's end covers every shard
    return WitnessEntry(
        run_id=run_id,
        store=store.location,
        seal=sealed.n,
        rows=_sealed_rows(sealed) or 0,
        head=sealed.seal_hash,
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        shard=shard,
    )


def touch_witness(path: Path) -> None:
    """Creates the witness file if missing: a file that cannot be appended to is
    refused before a run begins, not after it was paid for.

    Raises:
        WitnessError: The file cannot be opened for appending.
    """
    os.close(_open_for_append(path))


def append_witness(path: Path, entries: Sequence[WitnessEntry]) -> None:
    """Appends the entries, one line each, in one write; earlier lines are never touched.

    Raises:
        WitnessError: The file cannot be opened or written (the lines are not added).
    """
    if not entries:
        return
    data = b"".join(entry.line() for entry in entries)
    fd = _open_for_append(path)
    try:
        size = os.fstat(fd).st_size
        # A line added by hand without its newline would swallow ours.
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        written = os.write(fd, data)
        if written != len(data):
            raise WitnessError(f"{path}: only {written} of {len(data)} bytes written (disk full?)")
        os.fsync(fd)
    except OSError as exc:
        raise WitnessError(f"{path}: cannot append the run's head: {exc.strerror}") from None
    finally:
        os.close(fd)


def _open_for_append(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WitnessError(f"{path}: cannot open the witness file: {exc.strerror}") from None


def read_witness(path: Path) -> list[tuple[int, WitnessEntry]]:
    """Reads every entry of a witness file, with its line number; blank lines are skipped.

    Raises:
        WitnessError: The file cannot be read, or a line is not an entry (``FILE:LINE:``).
    """
    try:
        with path.open("rb") as handle:
            return list(_entries(path, handle))
    except OSError as exc:
        raise WitnessError(f"{path}: cannot read the witness file: {exc.strerror}") from None


def _entries(path: Path, lines: Iterable[bytes]) -> Iterator[tuple[int, WitnessEntry]]:
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise WitnessError(f"{path}:{number}: not a JSON line") from None
        problem = _line_problem(data)
        if problem is not None:
            raise WitnessError(f"{path}:{number}: {problem}")
        yield number, WitnessEntry(**{k: v for k, v in data.items() if k != "schema"})


def _line_problem(data: Any) -> str | None:
    if type(data) is not dict:
        return "not a JSON object"
    if data.get("schema") != WITNESS_SCHEMA:
        return f"schema is not {WITNESS_SCHEMA!r}"
    allowed = {"schema", "seal", "rows", "head", "shard", *_TEXT_KEYS}
    if unknown := sorted(set(data) - allowed):
        return f"unknown key {unknown[0]!r}"
    for key in _TEXT_KEYS:
        if type(data.get(key)) is not str or not data[key]:
            return f"{key} is not a non-empty string"
    if type(data.get("seal")) is not int or data["seal"] < 1:
        return "seal is not a position in a seal chain (an integer from 1)"
    if type(data.get("rows")) is not int or data["rows"] < 0:
        return "rows is not a row's seq (an integer from 0)"
    if type(data.get("head")) is not str or not _HEX64.fullmatch(data["head"]):
        return "head is not 64 lowercase hex digits"
    if "shard" in data and type(data["shard"]) is not str:
        return "shard is not a string"
    return None


@dataclass(slots=True)
class WitnessCheck:
    """What ``check_witness`` found: how many heads were checked, and one located
    line per head the store no longer holds."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def held(self) -> int:
        return self.checked - len(self.problems)

    def line(self, path: Path) -> str:
        """One line saying how many witnessed heads the store holds."""
        if not self.checked:
            return f"witness {path}: no head witnessed yet"
        if self.held == self.checked:
            return f"witness {path}: {self.checked} head(s) checked, every one held"
        return f"witness {path}: {self.checked} head(s) checked, {self.held} held"


def check_witness(
    store: GapStore, path: Path, entries: Sequence[tuple[int, WitnessEntry]]
) -> WitnessCheck:
    """Checks that the store's seal chain holds each witnessed head where it was.

    Reads the seal chain once. Call inside the audit's snapshot (``store.snapshot()``)
    so the heads are checked against the chain the audit verified.

    Args:
        store: The store to check.
        path: The witness file, for the problems' locations.
        entries: The witness file's entries with their line numbers.
    """
    wanted = {entry.seal for _, entry in entries}
    found: dict[int, StoredSeal] = {}
    last = 0
    for seal in store.iter_seals():
        last = max(last, seal.n)
        if seal.n in wanted:
            found.setdefault(seal.n, seal)
    problems = [
        f"{path}:{number}: {problem}"
        for number, entry in entries
        if (problem := _entry_problem(entry, found.get(entry.seal), last)) is not None
    ]
    return WitnessCheck(checked=len(entries), problems=problems)


def _entry_problem(entry: WitnessEntry, seal: StoredSeal | None, last: int) -> str | None:
    what = f"run {entry.run_id}'s head {entry.head} (seal {entry.seal}, rows to seq {entry.rows})"
    if seal is None:
        ends = f"ends at seal {last}" if last else "holds no seal"
        return f"{what} is gone: the seal chain {ends}, so the store was cut or emptied since"
    if seal.seal_hash != entry.head:
        return (
            f"{what} is not in the seal chain (seal {entry.seal} is {seal.seal_hash}): "
            "the store was rewritten since it was witnessed"
        )
    if not seal_intact(seal):
        return f"{what} is held by a seal that no longer hashes to it: the seal was edited"
    rows = _sealed_rows(seal)
    if rows != entry.rows:
        return (
            f"{what}: the seal with that head commits to rows up to seq {rows}, "
            "not what the line says: the witness line was edited"
        )
    return None


def _sealed_rows(seal: StoredSeal) -> int | None:
    try:
        rows = orjson.loads(seal.body).get("rows")
        seq = rows.get("seq") if isinstance(rows, dict) else None
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return seq if type(seq) is int else None
