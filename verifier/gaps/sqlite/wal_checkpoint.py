"""Checkpoints a gap store's write-ahead log on a thread of its own.

By default SQLite copies the WAL back into the database file inside the COMMIT of
whichever write takes the WAL past 1,000 pages, so that write also pays for copying
the pages and, with ``synchronous=NORMAL``, for two fsyncs. A run appending thousands
of rows a second spent more wall time there than in everything else the store does.
So the appending connection turns automatic checkpoints off and, after each append,
wakes this thread, which runs a PASSIVE checkpoint on a connection of its own. SQLite
releases the GIL for the whole checkpoint, so the copy and the fsyncs overlap with
checking the next chunk of cases.

A PASSIVE checkpoint is what the automatic one runs: it never blocks writers or
readers, and it fsyncs the WAL before copying it. Durability is unchanged (a crashed
process loses nothing committed; a power loss may lose the last commits, and what
remains is a valid chain), and so is sharing one file between processes. If the
thread cannot checkpoint, it stops and says so through ``failed``; the store then
goes back to automatic checkpoints.

A PASSIVE checkpoint copies the frames that were in the WAL when it began; while it
copies, the run appends more, so under a steady stream of appends it never finds the
WAL fully copied, the WAL never starts again from its beginning, and the file grows
without bound (9.4 GB beside a 6.9 GB store after 5,100,000 cases). So once the WAL
holds ``TRUNCATE_FRAMES`` frames the thread runs a TRUNCATE checkpoint instead: it waits
for the append in progress, keeps the next one waiting (on that connection's 30 s busy
timeout) while it copies what is left, and empties the file. That copy is at most
``TRUNCATE_FRAMES`` pages, a few seconds at worst.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from verifier.logs import get_logger

log = get_logger("verifier.gaps")

# 16,384 pages: 256 MiB of WAL with the 16 KiB pages of new stores, 64 MiB with 4 KiB.
TRUNCATE_FRAMES = 16_384
# How long the TRUNCATE checkpoint waits for the append in progress; one that cannot
# wait that long is tried again after the next append.
_BUSY_SECONDS = 10.0


class WalCheckpointer:
    """A daemon thread that checkpoints one SQLite file when asked.

    Args:
        path: The database file (already in WAL mode).
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._wake = threading.Event()
        self._closing = False
        self.failed = False
        # A daemon: a process that exits without closing its store must not hang on
        # it, and SQLite recovers from a checkpoint cut short.
        self._thread = threading.Thread(
            target=self._loop, name="verifier-wal-checkpoint", daemon=True
        )
        self._thread.start()

    def request(self) -> None:
        """Asks for a checkpoint (returns at once; requests made meanwhile merge)."""
        self._wake.set()

    def close(self) -> None:
        """Stops the thread once any checkpoint in progress has finished."""
        self._closing = True
        self._wake.set()
        self._thread.join()

    def _loop(self) -> None:
        try:
            conn = sqlite3.connect(
                self._path, timeout=_BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            self._fail(exc)
            return
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._closing:
                    return
                _busy, frames, _copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if frames >= TRUNCATE_FRAMES:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as exc:
            self._fail(exc)
        finally:
            conn.close()

    def _fail(self, exc: sqlite3.Error) -> None:
        self.failed = True
        log.warning("background WAL checkpoints stopped", store=str(self._path), error=str(exc))
