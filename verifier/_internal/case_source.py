"""Cases from a file that can be read only once: standard input (``-``), a named pipe,
a process substitution (``--cases <(jq ...)``), a character device.

A run reads its cases file more than once (a first look refuses a file holding no case;
the progress bar counts lines; a gate hashes the file; a batch run reads the cases
again), so such a source is copied once, as it is read, to a temporary file that the
run then reads like any other and removes when it ends.
"""

from __future__ import annotations

import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from verifier._internal.write_errors import os_problem
from verifier.errors import CasesError

__all__ = ["STDIN", "read_once", "readable_again"]

_CHUNK = 1 << 20

STDIN = "-"
"""The cases file name that stands for standard input."""


def read_once(path: Path) -> bool:
    """Whether ``path`` names a source that cannot be read twice: ``-`` or something
    that exists and is neither a regular file nor a directory."""
    if str(path) == STDIN:
        return True
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def readable_again(path: Path) -> Iterator[Path]:
    """A regular file holding what ``path`` (``read_once``) gave, removed on exit.

    Raises:
        CasesError: ``path`` cannot be opened, or the copy cannot be written (the
            temporary directory, ``TMPDIR``, is full or not writable: named as such).
    """
    folder = tempfile.gettempdir()
    try:
        copy = tempfile.NamedTemporaryFile(  # noqa: SIM115 (kept past this block)
            prefix="verifier-cases-", suffix=".jsonl", delete=False
        )
    except OSError as exc:
        raise CasesError(_cannot_copy(path, folder, exc)) from None
    copied = Path(copy.name)
    try:
        try:
            with copy, _opened(path) as source:
                while chunk := _read(path, source):
                    copy.write(chunk)
        except OSError as exc:  # reads raise CasesError: this is a write, or the close
            raise CasesError(_cannot_copy(path, folder, exc)) from None
        yield copied
    finally:
        copied.unlink(missing_ok=True)


def _read(path: Path, source: BinaryIO) -> bytes:
    try:
        return source.read(_CHUNK)
    except OSError as exc:
        raise CasesError(f"{path}: cannot read cases: {os_problem(exc)}") from None


@contextmanager
def _opened(path: Path) -> Iterator[BinaryIO]:
    if str(path) == STDIN:
        yield sys.stdin.buffer
        return
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise CasesError(f"{path}: cannot read cases: {os_problem(exc)}") from None
    with handle:
        yield handle


def _cannot_copy(path: Path, folder: str, exc: OSError) -> str:
    shown = "standard input" if str(path) == STDIN else str(path)
    return (
        f"{shown}: cannot copy the cases to a temporary file in {folder} "
        f"(TMPDIR; they are read more than once): {os_problem(exc)}"
    )
