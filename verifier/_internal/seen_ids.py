"""The case ids a run has taken so far, known exactly, in memory that stays flat.

A run refuses a second case with an id it has already taken, so it must remember
every id. Up to ``IN_MEMORY`` ids (a bench of 100,000 cases, most real runs) that is
a set of the ids themselves: exact, and cheaper per case than hashing them. Past
that, the ids move to a private temporary SQLite file (``PRIMARY KEY`` on the id,
SQLite's page cache bounded), so ten million cases cost a few megabytes of memory
and a temporary file of about their ids' size, deleted when the reading ends. The
answer is exact either way: no fingerprint, so no false duplicate (see ADR 0046).
"""

from __future__ import annotations

import sqlite3

from verifier.errors import CasesError

IN_MEMORY = 1 << 17  # about 15 MB of ids and set at this many
_CACHE_KIB = 4 * 1024
_INSERT = "INSERT INTO ids (id) VALUES (?)"


class SeenIds:
    """A set of case ids that answers exactly whether an id was added before.

    Args:
        in_memory: How many ids are kept in memory before they move to a temporary
            file (the file then takes every further id).
    """

    def __init__(self, in_memory: int = IN_MEMORY) -> None:
        self._ids: set[str] = set()
        self._limit = in_memory
        self._file: sqlite3.Connection | None = None

    def add(self, case_id: str) -> bool:
        """Adds ``case_id``; returns ``False`` (adding nothing) when it was added before.

        Raises:
            CasesError: The temporary file cannot be written (a full disk).
        """
        file = self._file
        if file is None:
            ids = self._ids
            if case_id in ids:
                return False
            ids.add(case_id)
            if len(ids) >= self._limit:
                self._spill()
            return True
        try:
            file.execute(_INSERT, (case_id,))
        except sqlite3.IntegrityError:
            return False
        except sqlite3.Error as exc:
            raise CasesError(f"cannot keep track of case ids in a temporary file: {exc}") from None
        return True

    @property
    def on_disk(self) -> bool:
        """Whether the ids have moved to the temporary file."""
        return self._file is not None

    def _spill(self) -> None:
        try:
            # "" is a private temporary file that SQLite deletes when it is closed; one
            # transaction stays open, as nothing needs to survive a crash.
            file = sqlite3.connect("", isolation_level=None, check_same_thread=False)
            file.execute(f"PRAGMA cache_size = -{_CACHE_KIB}")
            file.execute("PRAGMA journal_mode = OFF")
            file.execute("CREATE TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID")
            file.execute("BEGIN")
            # Sorted, so the B-tree is built by appending pages rather than splitting them.
            file.executemany(_INSERT, ((case_id,) for case_id in sorted(self._ids)))
        except sqlite3.Error as exc:
            raise CasesError(f"cannot keep track of case ids in a temporary file: {exc}") from None
        self._file = file
        self._ids = set()

    def close(self) -> None:
        """Forgets every id and deletes the temporary file, if any."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._ids = set()
