"""How many cases of a run found their baseline (``verifier run --baseline FILE``).

A case whose id the baseline file does not hold is compared with nothing: its
comparisons are ``error`` rows (ADR 0062). One line at the end of the run says how many
ids matched and names the first that did not, each with the closest baseline id, so a
baseline of another case set (or ids renamed) is seen at once, not inferred from rows.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from dataclasses import dataclass, field

__all__ = ["BaselineMatches"]

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
