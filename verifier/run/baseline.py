"""A run's baseline (``verifier run --baseline FILE``): the baseline cases read by id,
joined to each case under ``baseline``, and how many cases found theirs.

A case whose id the baseline file does not hold is compared with nothing: its
comparisons are ``error`` rows (ADR 0062). One line at the end of the run says how many
ids matched and names the first that did not, each with the closest baseline id, so a
baseline of another case set (or ids renamed) is seen at once, not inferred from rows.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.cases import CaseLine, read_cases
from verifier.contract.load import LoadedContract
from verifier.errors import CasesError

__all__ = ["BaselineMatches", "join_baseline", "read_baseline", "reads_baseline"]

_NAMED = 5
"""Unmatched case ids named in the line (the rest are counted)."""


@dataclass(slots=True)
class BaselineMatches:
    """Counts the cases joined with a baseline as they stream past.

    Attributes:
        matched: Cases whose id the baseline holds.
        unmatched: Cases whose id it does not.
        first_unmatched: The first few of those, in order, to be named.
    """

    matched: int = 0
    unmatched: int = 0
    first_unmatched: list[str] = field(default_factory=list)

    def add(self, case_id: str, found: bool) -> None:
        """Counts one case."""
        if found:
            self.matched += 1
            return
        self.unmatched += 1
        if len(self.first_unmatched) < _NAMED:
            self.first_unmatched.append(case_id)

    def clear(self) -> None:
        """Forgets the counts (the cases are read again from the start)."""
        self.matched = self.unmatched = 0
        self.first_unmatched.clear()

    def line(self, baseline_ids: Collection[str]) -> str:
        """``baseline: 18 of 20 case ids matched; 2 cases have no baseline: a, b``.

        Args:
            baseline_ids: The ids the baseline holds, for the closest id of each named.
        """
        total = self.matched + self.unmatched
        text = f"baseline: {self.matched} of {total} case ids matched"
        if not self.unmatched:
            return text
        ordered = sorted(baseline_ids)
        named = []
        for case_id in self.first_unmatched:
            near = difflib.get_close_matches(case_id, ordered, n=1, cutoff=0.6)
            named.append(f"{case_id} (closest: {near[0]})" if near else case_id)
        more = self.unmatched - len(named)
        rest = f" and {more} more" if more else ""
        cases = "case has" if self.unmatched == 1 else "cases have"
        text += f"; {self.unmatched} {cases} no baseline: {', '.join(named)}{rest}"
        if not self.matched:
            text += " (is it the baseline of these cases?)"
        return text


def read_baseline(baseline: Path) -> dict[str, dict[str, Any]]:
    """The cases of a baseline file by id, read whole (cases are looked up by id).

    Raises:
        CasesError: The file cannot be opened, or a line of it is unusable (not JSON,
            no id, an id taken already): a case whose baseline was on that line would
            be compared with none, so the file is refused, naming the line.
    """
    index: dict[str, dict[str, Any]] = {}
    for line in read_cases(baseline):
        if line.case is None:
            reason = (line.error or "unusable").removeprefix(f"line {line.line}: ")
            raise CasesError(
                f"{baseline}:{line.line}: a baseline line must be a usable case: {reason}"
            )
        index[line.case_id] = line.case
    return index


def join_baseline(
    cases: Iterator[CaseLine],
    index: Mapping[str, dict[str, Any]],
    matches: BaselineMatches | None = None,
) -> Iterator[CaseLine]:
    """Adds each case's baseline (the case with the same id in ``index``, made by
    ``read_baseline``) under ``baseline``, for comparative claims. A case with no
    baseline gets ``null`` there, so its comparisons are errors saying so; ``matches``,
    given, counts both."""
    for line in cases:
        if line.case is None:
            yield line
            continue
        joined = dict(line.case)
        joined["baseline"] = found = index.get(line.case_id)
        if matches is not None:
            matches.add(line.case_id, found is not None)
        yield CaseLine(line.line, line.case_id, joined, line.error)


def reads_baseline(loaded: LoadedContract) -> bool:
    """Whether a claim of ``loaded`` reads a case's baseline (a comparative claim
    without ``outputs``, or with outputs naming ``baseline.*``)."""
    from verifier.contract.models import CompareClaim
    from verifier.engine.comparative import reads_baseline as compares_baseline

    return any(isinstance(c, CompareClaim) and compares_baseline(c) for c in loaded.contract.claims)
