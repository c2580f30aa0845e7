"""The command line's last word on output that could not be written.

Commands turn the errors they expect into one line each; this group catches what is
left (standard output on a full disk, a file written deep inside a command) so that
a full disk or a read-only folder is still one line and exit 2, an error of verifier,
never a traceback or exit 1 (a failed case). Standard output is flushed before the
command's exit code stands, so a report still buffered for a full disk fails here
rather than at interpreter exit.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import IO, Any, NoReturn

import click

from verifier._internal.terminal import printable
from verifier._internal.write_errors import OutputError, os_problem
from verifier.errors import VerifierError

__all__ = ["OutputFaultGroup", "fail_line"]

STDOUT = "standard output"


def fail_line(message: str, code: int) -> NoReturn:
    """Prints ``error: message`` (control characters escaped) on stderr and exits ``code``."""
    click.echo(f"error: {printable(message)}", err=True)
    sys.exit(code)


class OutputFaultGroup(click.Group):
    """The ``verifier`` group: an unwritable output is one line and exit 2."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        original = sys.stdout
        sys.stdout = _NamedStdout(original)
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                # Even after sys.exit: a report still buffered must reach the disk now.
                sys.stdout.flush()
        except OutputError as exc:
            if exc.path == STDOUT:
                # Nothing more can reach it: interpreter exit must not try (and fail) again.
                original = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
            fail_line(str(exc), 2)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise  # a reader that stopped early (`| head`): click's own quiet exit
            where = f"{exc.filename}: " if exc.filename is not None else ""
            fail_line(f"{where}cannot write: {os_problem(exc)}", 2)
        except VerifierError as exc:
            fail_line(str(exc), 2)
        finally:
            sys.stdout = original


class _NamedStdout:
    """``sys.stdout`` whose failed writes say that standard output could not be written."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            raise OutputError(STDOUT, exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            raise OutputError(STDOUT, exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
