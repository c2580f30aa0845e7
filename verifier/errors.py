"""Errors verifier reports to users, each one line naming where the problem is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from verifier._internal.terminal import printable_line


class VerifierError(Exception):
    """Base of every error shown to a user as one line (never a traceback)."""


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    """One problem found in a file, printed as ``FILE:LINE:COL: message`` (``FILE:
    message`` for a problem of the whole file).

    Attributes:
        file: The file as the user named it.
        line: 1-based line (0 when the problem concerns the whole file).
        col: 1-based column.
        message: What is wrong, and where possible how to fix it.
        severity: ``error`` rejects the file; ``warning`` is reported only.
    """

    file: str
    line: int
    col: int
    message: str
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        prefix = "" if self.severity == "error" else "warning: "
        # A problem of the whole file (line 0) has no position to show.
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        # One line whatever a message quotes: a key or name with a line break in it
        # would otherwise split the problem over lines that look like others.
        return printable_line(f"{where}: {prefix}{self.message}")


class ContractError(VerifierError):
    """A contract that cannot be used; carries every problem found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class CasesError(VerifierError):
    """A cases file that cannot be read at all (missing, a directory, unreadable)."""


class SutError(VerifierError):
    """A system under test that cannot be used at all (a bad spec, a missing program or
    function): the run does not start."""


class MissingExtraError(VerifierError):
    """A feature needs a package of an optional extra that is not installed; the message
    names the extra to install (``verifier._internal.extras``)."""
