"""The seal chain in a JSONL export: written among the rows, checked before an import.

An export carries the source store's whole seal chain (``verifier.gap-export.seal.v1``
lines) after its rows. The import checks every link and hash, that the row each seal
recorded is in the file with that hash (a run export holds only some rows: the others
are not checked), and that each ended run's line agrees with its sealed end. The rows
are read again alongside the seals, a second handle on the file, so memory does not
grow with them. So an export whose rows or run
lines were edited and every hash computed again is refused unless its seals were
rewritten too, which changes the head: ``--expect-head`` with the head the source
store published refuses that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from verifier.gaps.chain import GENESIS
from verifier.gaps.seals import StoredSeal, seal_intact
from verifier.gaps.store import GapStore

SEAL_LINE_SCHEMA = "verifier.gap-export.seal.v1"
_RUN_FIELDS = ("contract_id", "contract_version", "contract_sha256", "started_at", "options")
_END_FIELDS = ("status", "finished_at", "summary")


class SealLines:
    """Writes a store's seals after its exported rows. Made before the rows are read,
    so every seal names a row of the rows' snapshot (see ``verifier.analyses._seal_audit``)."""

    def __init__(self, store: GapStore, write: Callable[[str], Any]) -> None:
        self._write = write
        self._seals: Iterator[StoredSeal] = iter(store.iter_seals())
        self._pending = next(self._seals, None)
        self.head: str | None = None

    def rest(self) -> None:
        """Writes every seal."""
        while self._pending is not None:
            self._emit(self._pending)
            self._pending = next(self._seals, None)

    def _emit(self, seal: StoredSeal) -> None:
        line = {"schema": SEAL_LINE_SCHEMA, **seal._asdict()}
        self._write(orjson.dumps(line, option=orjson.OPT_SORT_KEYS).decode("utf-8") + "\n")
        self.head = seal.seal_hash


class _RowHashes:
    """The export's rows read again, forward only: the hash of the row at a seq."""

    def __init__(self, path: Path, read_row: Callable[[int, bytes], dict[str, Any] | None]):
        self._file: IO[bytes] = path.open("rb")
        self._read_row = read_row
        self._current: tuple[int, str] | None = None
        self._rows = self._iter()

    def _iter(self) -> Iterator[tuple[int, str]]:
        for number, raw in enumerate(self._file, start=1):
            row = self._read_row(number, raw.rstrip(b"\r\n")) if raw.startswith(b"{") else None
            if row is not None:
                yield row["seq"], row["row_hash"]

    def at(self, seq: int) -> str | None:
        if seq == 0:
            return GENESIS
        while self._current is None or self._current[0] < seq:
            self._current = next(self._rows, None)
            if self._current is None:
                self._current = (1 << 62, "")
        return self._current[1] if self._current[0] == seq else None

    def close(self) -> None:
        self._file.close()


class SealCheck:
    """Checks an export's seal lines as the import's first pass meets them.

    Each check returns ``None`` or the reason to refuse the line. ``close`` when done.
    """

    def __init__(
        self,
        path: Path,
        scope: str,
        expect_head: str | None,
        read_row: Callable[[int, bytes], dict[str, Any] | None],
    ) -> None:
        self._path, self._read_row = path, read_row
        self._rows: _RowHashes | None = None
        self.scope = scope
        self.expect_head = expect_head
        self.head: StoredSeal | None = None
        self.found_head = False
        self._runs: dict[str, tuple[int, dict[str, Any], dict[str, Any] | None]] = {}

    def seal(self, value: dict[str, Any]) -> str | None:
        """A seal line."""
        try:
            seal = StoredSeal(**{k: value[k] for k in StoredSeal._fields})
        except KeyError:
            return "a seal line needs n, kind, subject, body, prev_hash and seal_hash"
        expected = (self.head.n + 1, self.head.seal_hash) if self.head else (1, GENESIS)
        if (seal.n, seal.prev_hash) != expected:
            return f"seal {seal.n} is out of place: seal {expected[0]} was expected here"
        try:
            body = orjson.loads(seal.body) if isinstance(seal.body, str) else None
        except orjson.JSONDecodeError:
            body = None
        if (
            not isinstance(body, dict)
            or not seal_intact(seal)
            or (body.get("n"), body.get("prev_hash")) != expected
            or (body.get("kind"), body.get("subject")) != (seal.kind, seal.subject)
        ):
            return f"seal {seal.n} was edited: its hash does not match it"
        self.head = seal
        self.found_head |= seal.seal_hash == self.expect_head
        rows = body.get("rows")
        seq, row_hash = (rows.get("seq"), rows.get("hash")) if isinstance(rows, dict) else (0, "")
        if self._rows is None:
            self._rows = _RowHashes(self._path, self._read_row)
        held = self._rows.at(seq) if isinstance(seq, int) else ""
        if held != row_hash and (self.scope == "store" or held is not None):
            return (
                f"seal {seal.n} records row {seq} with another hash than the export "
                "holds: rows were edited and their hashes computed again"
            )
        run = body.get("run")
        if seal.kind in ("begin", "end") and isinstance(run, dict):
            begun = run if seal.kind == "begin" else self._runs.get(seal.subject, (0, {}, None))[1]
            self._runs[seal.subject] = (seal.n, begun, run if seal.kind == "end" else None)
        return None

    def run(self, value: dict[str, Any]) -> str | None:
        """A run line against its run's seals (an ended run's line must match its end)."""
        sealed = self._runs.get(value["run_id"])
        if sealed is None:
            return None  # a run from before the seal chain
        n, begun, ended = sealed
        differs = [f for f in _RUN_FIELDS if f in begun and begun[f] != value.get(f)]
        if ended is not None:
            differs += [f for f in _END_FIELDS if ended.get(f) != value.get(f)]
        if not differs:
            return None
        return f"run {value['run_id']}'s line disagrees with its seal {n} ({', '.join(differs)})"

    def close(self) -> None:
        if self._rows is not None:
            self._rows.close()

    def end(self, value: dict[str, Any]) -> str | None:
        """The end line's head, and the head the import was asked to find."""
        head = self.head.seal_hash if self.head else None
        if value.get("head", head) != head:
            return "the end line names another head than the export's last seal"
        if self.expect_head is not None and not self.found_head:
            return (
                f"the export does not hold the published head {self.expect_head}: it was "
                "edited and sealed again, or is of another store"
            )
        return None
