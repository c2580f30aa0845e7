"""Finished runs' reports, kept on disk instead of in the server's memory.

A report grows with its run (tens of megabytes for a run at the results limit); kept
in memory, a few of them were most of the server's footprint. Each report is written
once, whole or not at all, into a folder the server creates for itself (under
``$TMPDIR``, readable by its user only) and removes when it stops, and is sent back by
``GET /v1/runs/{id}`` in chunks, never read whole; a report of one chunk or less is
read and sent at once, since streaming it (a worker thread per chunk, a write per
piece) cost four times the CPU of the request itself.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Final

import orjson
from fastapi.responses import Response, StreamingResponse

from verifier._internal.atomic import AtomicFile

_CHUNK: Final = 256 * 1024


class ReportFolder:
    """The folder of one server's reports, one ``RUN_ID.json`` per finished run; made
    when the first report is written, so a server that runs nothing leaves nothing."""

    def __init__(self) -> None:
        self._path: Path | None = None
        # Runs finish in worker threads: two at once must not make two folders.
        self._lock = threading.Lock()

    def file(self, run_id: str) -> Path:
        with self._lock:
            if self._path is None:
                self._path = Path(tempfile.mkdtemp(prefix="verifier-serve-reports-"))
            return self._path / f"{run_id}.json"

    def writer(self, run_id: str) -> AtomicFile:
        """A report being written; it appears under its name only once committed.

        Raises:
            OSError: The folder cannot be made or written.
        """
        return AtomicFile(self.file(run_id))

    def open(self, run_id: str) -> IO[bytes] | None:
        """The report of ``run_id`` for reading, or ``None`` when there is none."""
        try:
            return self.file(run_id).open("rb")
        except OSError:
            return None

    def drop(self, run_id: str) -> None:
        self.file(run_id).unlink(missing_ok=True)

    def remove(self) -> None:
        """Removes the folder and every report in it (the server is stopping)."""
        with self._lock:
            if self._path is not None:
                shutil.rmtree(self._path, ignore_errors=True)


def state_with_report(state: Mapping[str, Any], report: IO[bytes]) -> Response:
    """A run's state as JSON with its report file as ``report``, read from ``report``
    (which is closed once sent): streamed, unless it is one chunk or less."""
    head = orjson.dumps({k: v for k, v in state.items() if k != "report"})
    # ``head`` is a complete object; reopen it to append the report as its last member.
    prefix = head[:-1] + b',"report":'
    size = os.fstat(report.fileno()).st_size
    if size <= _CHUNK:
        with report:
            return Response(prefix + report.read() + b"}", media_type="application/json")
    length = len(prefix) + size + 1

    def body() -> Iterator[bytes]:
        with report:
            yield prefix
            while chunk := report.read(_CHUNK):
                yield chunk
            yield b"}"

    return StreamingResponse(
        body(), media_type="application/json", headers={"content-length": str(length)}
    )
