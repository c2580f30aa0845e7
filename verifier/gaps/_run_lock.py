"""One writer per run in a SQLite store: a lock the operating system holds for it.

A run is written by the process that began it until it ends. A second process that
begins the same run (``--resume`` of a run that is still going) would write its rows
twice and rewrite its end; it is refused instead. The lock is ``flock`` on a small
file beside the store (``gaps.db.writers/HASH``, a folder that exists only while a
run is being written), held from ``begin_run`` until the run ends or the store
closes. A killed process's lock goes with it, so a crashed run can be resumed at
once, with nothing stale to clean up. (PostgreSQL stores use a session advisory
lock, which the server drops with the connection the same way, once the statement
the killed writer was running ends; ``begin_run`` waits a moment for that.)
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from verifier.gaps.records import StoreError

__all__ = ["RunWriterLock", "still_written"]


def still_written(run_id: str) -> StoreError:
    """The refusal when another process is writing ``run_id``."""
    return StoreError(
        f"run {run_id} is still being written by another process: wait for it to end "
        "(or stop it) before resuming it; a run has one writer at a time"
    )


class RunWriterLock:
    """The locks one store object holds, by run id."""

    def __init__(self, store_path: Path) -> None:
        self._folder = store_path.with_name(store_path.name + ".writers")
        self._held: dict[str, int] = {}

    @contextmanager
    def taken(self, run_id: str) -> Iterator[None]:
        """Holds the run's lock for what follows, letting it go again if that fails
        (the run did not begin, so nobody is writing it)."""
        try:
            self.acquire(run_id)
        except OSError as exc:
            raise StoreError(f"cannot lock run {run_id} for writing: {exc}") from None
        try:
            yield
        except BaseException:
            self.release(run_id)
            raise

    def acquire(self, run_id: str) -> None:
        """Takes the run's lock, or raises ``StoreError`` when another writer holds it."""
        if run_id in self._held:
            return
        path = self._path(run_id)
        for _ in range(3):  # another store may remove the empty folder meanwhile
            self._folder.mkdir(exist_ok=True)
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                break
            except FileNotFoundError:
                continue
        else:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise still_written(run_id) from None
        except OSError:
            os.close(fd)
            raise
        self._held[run_id] = fd

    def held(self, run_id: str) -> bool:
        """Whether a writer (this store or another process) holds the run's lock now."""
        if run_id in self._held:
            return True
        try:
            fd = os.open(self._path(run_id), os.O_RDONLY)
        except OSError:
            return False  # no lock file: nobody is writing the run
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)  # closing drops a shared lock taken just now
        return False

    def release(self, run_id: str) -> None:
        """Lets the run go (after its end is recorded) and removes its lock file."""
        fd = self._held.pop(run_id, None)
        if fd is None:
            return
        # Removed while still held: a process that opened the file meanwhile fails its
        # try-lock and the run has ended by then, which begin_run refuses anyway.
        self._path(run_id).unlink(missing_ok=True)
        os.close(fd)
        # The folder goes once no run is being written, so it lingers only meanwhile.
        with suppress(OSError):
            self._folder.rmdir()

    def release_all(self) -> None:
        """Drops every lock this store holds (the store is closing)."""
        for fd in self._held.values():
            os.close(fd)
        self._held.clear()

    def _path(self, run_id: str) -> Path:
        return self._folder / hashlib.sha256(run_id.encode("utf-8")).hexdigest()[:32]
