"""GitHub annotations for a run: one workflow command per failing claim.

GitHub turns a line ``::error file=F,line=L,col=C,title=T::message`` printed by a step
into an annotation on line L of file F in the pull request's diff and the run's page.
Annotations are aggregated per claim (one per claim, never one per case): the count
of failing cases and the first few case ids with their reasons. Claims with ``error``
rows (a verdict that could not be had) get a ``::warning``. A case line that could not
be used at all is annotated on its line of the cases file instead of on every claim.

GitHub shows at most 10 error and 10 warning annotations per step; past
:data:`MAX_PER_LEVEL` of a level the rest are counted in one ``::notice`` so nothing
vanishes silently. The commands go to stderr, which GitHub reads as it reads stdout,
so a report on stdout (``--format json``) stays parseable. ``verifier check`` puts
each problem it finds on its line and column the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from verifier._internal.terminal import printable_line
from verifier.errors import Diagnostic
from verifier.report._failures import one_line
from verifier.results import CaseResult, RowStatus, RunSummary

if TYPE_CHECKING:
    from verifier.contract.load import LoadedContract

__all__ = [
    "MAX_PER_LEVEL",
    "AnnotationWriter",
    "ClaimPosition",
    "claim_positions",
    "diagnostic_command",
    "escape_data",
    "escape_property",
    "workflow_command",
    "workspace_path",
]

Level = Literal["error", "warning", "notice"]

MAX_PER_LEVEL = 10
"""Annotations of one level per step that GitHub displays."""

EXAMPLES_PER_CLAIM = 3
"""Failing cases quoted in one claim's annotation."""

REASON_CHARS = 200


@dataclass(frozen=True, slots=True)
class ClaimPosition:
    """Where a claim is written: its contract file (as GitHub names it), line, column."""

    file: str
    line: int
    col: int


def escape_data(text: str) -> str:
    """Escapes a command's message the way GitHub's runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escapes a command property value (``file``, ``title``): also ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(level: Level, message: str, **properties: str | int) -> str:
    """Returns one workflow command line, e.g. ``::error file=a.yaml,line=3::text``."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{level}{' ' + props if props else ''}::{escape_data(message)}"


def workspace_path(path: Path, *, workspace: str | None = None) -> str:
    """``path`` as GitHub expects in an annotation: relative to the workspace, ``/``-separated.

    The workspace is ``$GITHUB_WORKSPACE`` (the checkout) when set, else the current
    directory; a path outside it is given as it was named.
    """
    root = Path(workspace or os.environ.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def claim_positions(loaded: LoadedContract) -> dict[str, ClaimPosition]:
    """Where each claim of a contract starts (its ``id`` key), keyed by claim id."""
    file = workspace_path(loaded.path)
    positions = {}
    for index, claim in enumerate(loaded.contract.claims):
        line, col = loaded.positions.of(("claims", index, "id"), key=True)
        positions[claim.id] = ClaimPosition(file, line, col)
    return positions


def diagnostic_command(diagnostic: Diagnostic) -> str:
    """A ``verifier check`` problem as an annotation at its line and column."""
    level: Level = "error" if diagnostic.severity == "error" else "warning"
    where: dict[str, str | int] = {"file": workspace_path(Path(diagnostic.file))}
    if diagnostic.line:
        where.update(line=diagnostic.line, col=diagnostic.col)
    return workflow_command(level, diagnostic.message, **where, title="verifier check")


@dataclass(slots=True)
class _ClaimFailures:
    count: int = 0
    examples: list[tuple[str, str]] = field(default_factory=list)

    def add(self, case_id: str, reason: str) -> None:
        self.count += 1
        if len(self.examples) < EXAMPLES_PER_CLAIM:
            self.examples.append((printable_line(case_id), one_line(reason, REASON_CHARS)))


class AnnotationWriter:
    """A report sink printing GitHub annotations for failing claims in ``finish``.

    Args:
        out: Where the workflow commands go (stderr in ``verifier run``).
        positions: Each claim's file, line and column.
        cases_file: The cases file as GitHub names it, for unusable case lines.
        max_per_level: Annotations of one level at most.
    """

    def __init__(
        self,
        out: IO[str],
        positions: dict[str, ClaimPosition],
        *,
        cases_file: str | None = None,
        max_per_level: int = MAX_PER_LEVEL,
    ) -> None:
        self._out = out
        self._positions = positions
        self._cases_file = cases_file
        self._max = max_per_level
        self._failed: dict[str, _ClaimFailures] = {}
        self._errored: dict[str, _ClaimFailures] = {}
        self._bad_lines: list[tuple[int, str]] = []
        self._bad_line_count = 0

    def add_case(self, case: CaseResult) -> None:
        """Counts the case's failing and erroring claims."""
        if case.passed:
            return
        if _unusable_line(case):
            self._bad_line_count += 1
            if len(self._bad_lines) < self._max:
                self._bad_lines.append((case.line, one_line(case.results[0].reason)))
            return
        for result in case.results:
            target = _TARGETS.get(result.status)
            if target is not None:
                tallies = self._failed if target == "error" else self._errored
                tallies.setdefault(result.claim_id, _ClaimFailures()).add(
                    case.case_id, result.reason
                )

    def finish(self, summary: RunSummary) -> None:
        """Prints the annotations, the most-failing claims first, capped per level."""
        lines: list[str] = []
        lines += self._claim_commands("error", self._failed, summary, "failed")
        warnings = self._claim_commands("warning", self._errored, summary, "could not be checked")
        # GitHub shows ten annotations of a level per step: unusable lines get the
        # warnings the claims left (the notices that count the rest are not warnings).
        lines += self._line_commands(sum(w.startswith("::warning") for w in warnings))
        lines += warnings
        for line in lines:
            self._out.write(line + "\n")
        self._out.flush()

    def _claim_commands(
        self, level: Level, tallies: dict[str, _ClaimFailures], summary: RunSummary, verb: str
    ) -> list[str]:
        # Claims in contract order, then the most-failing first; sorted() is stable.
        order = {claim_id: i for i, claim_id in enumerate(summary.breakdown)}
        ranked = sorted(tallies.items(), key=lambda item: order.get(item[0], len(order)))
        ranked.sort(key=lambda item: -item[1].count)
        commands = []
        for claim_id, failures in ranked[: self._max]:
            where = self._positions.get(claim_id) or ClaimPosition(summary.contract_path, 1, 1)
            cases = "case" if failures.count == 1 else "cases"
            title = f"{claim_id} {verb} for {failures.count} of {summary.total_cases} cases"
            body = [f"claim {claim_id} {verb} for {failures.count} {cases}:"]
            body += [f"- {case_id}: {reason}" for case_id, reason in failures.examples]
            if failures.count > len(failures.examples):
                body.append(f"- …and {failures.count - len(failures.examples)} more")
            commands.append(
                workflow_command(
                    level,
                    "\n".join(body),
                    file=where.file,
                    line=where.line,
                    col=where.col,
                    title=f"verifier: {title}",
                )
            )
        left_out = len(ranked) - self._max
        if left_out > 0:
            commands.append(
                workflow_command(
                    "notice",
                    f"{left_out} more claims {verb} (not annotated); "
                    "the run's report and step summary list them all",
                    title="verifier: more annotations",
                )
            )
        return commands

    def _line_commands(self, warnings: int) -> list[str]:
        if not self._bad_line_count or self._cases_file is None:
            return []
        room = max(self._max - warnings, 0)
        commands = [
            workflow_command(
                "warning",
                reason,
                file=self._cases_file,
                line=line,
                title="verifier: unusable case line",
            )
            for line, reason in self._bad_lines[:room]
        ]
        if self._bad_line_count > len(commands):
            commands.append(
                workflow_command(
                    "notice",
                    f"{self._bad_line_count - len(commands)} more unusable case lines",
                    file=self._cases_file,
                    title="verifier: more annotations",
                )
            )
        return commands


_TARGETS: dict[RowStatus, Level] = {"fail": "error", "error": "warning"}


def _unusable_line(case: CaseResult) -> bool:
    """Whether every claim errored because the case's line itself could not be used."""
    results = case.results
    if not results:
        return False
    first = results[0]
    # The runner gives every claim of such a line one error whose evidence is the line.
    return all(
        r.status == "error" and r.reason == first.reason and r.evidence == {"line": case.line}
        for r in results
    )
