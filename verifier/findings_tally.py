"""A findings claim's run-level recall, precision and F1: micro and macro averages.

A findings claim's row (``verifier.engine.findings``) keeps in its evidence how many
findings were expected, how many the output gave and which were matched. Over a run:

- **micro**: from the counts summed over the cases: recall = Σmatched / Σexpected,
  precision = Σmatched / Σoutput, F1 = 2·Σmatched / (Σexpected + Σoutput);
- **macro**: the mean over the cases of each case's own figure. A case's figure is
  left out where it is undefined (and counted): recall of a case that expected
  nothing, precision of an output with no findings, F1 of a case with neither. The
  row's own score gives such a case 1 (nothing missed, nothing false); an average of
  them would count a case that says nothing as perfect.

A row that is an ``error`` (the output could not be read: nothing was checked) is
counted apart, never as 0; a skipped row is not counted. A row whose evidence was
redacted (``record: redact``) keeps no counts and is counted as ``without counts``.
Every surface (reports, the run record, the viewer, ``compare`` and gates) asks this
module, from the run's results or from its stored rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeGuard

__all__ = [
    "MEASURES",
    "CaseCounts",
    "FindingsTally",
    "case_counts",
    "findings_lines",
    "findings_rows",
    "is_findings_row",
]

MEASURES = ("recall", "precision", "f1")
"""The three figures, in the order reports print them."""


@dataclass(frozen=True, slots=True)
class CaseCounts:
    """One case's counts: findings matched, expected and given by the output."""

    matched: int
    expected: int
    actual: int

    def exact(self, measure: str) -> Fraction | None:
        """The recall, precision or F1 of these counts as a fraction (a paired test
        ranks them exactly); ``None`` where it is undefined (its denominator is 0)."""
        whole = {
            "recall": Fraction(self.expected),
            "precision": Fraction(self.actual),
            "f1": Fraction(self.expected + self.actual, 2),
        }[measure]
        return Fraction(self.matched) / whole if whole else None

    def figure(self, measure: str) -> float | None:
        """``exact`` as a float."""
        value = self.exact(measure)
        return None if value is None else float(value)


def is_findings_row(evidence: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether a row's evidence is a findings claim's (checked or not)."""
    return isinstance(evidence, Mapping) and isinstance(evidence.get("match_on"), list)


def _count(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def case_counts(evidence: Mapping[str, Any]) -> CaseCounts | None:
    """The counts a checked findings row's evidence keeps (``None``: it keeps none)."""
    matched = evidence.get("matched")
    expected, actual = _count(evidence.get("expected_count")), _count(evidence.get("actual_count"))
    if not isinstance(matched, list) or expected is None or actual is None:
        return None
    return CaseCounts(len(matched), expected, actual)


@dataclass(slots=True)
class FindingsTally:
    """One findings claim's counts over a run, for its micro and macro averages.

    Attributes:
        cases: Checked cases (a pass or a fail) whose counts are known.
        errors: Cases the claim could not check (not counted as 0).
        without_counts: Checked cases whose evidence keeps no counts (redacted).
    """

    cases: int = 0
    errors: int = 0
    without_counts: int = 0
    matched: int = 0
    expected: int = 0
    actual: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(MEASURES, 0.0))
    defined: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MEASURES, 0))

    def add(self, status: str, evidence: Mapping[str, Any]) -> None:
        """Counts one row of the claim: its status and evidence."""
        if status == "error":
            self.errors += 1
            return
        if status not in ("pass", "fail"):
            return
        counts = case_counts(evidence)
        if counts is None:
            self.without_counts += 1
            return
        self.cases += 1
        self.matched += counts.matched
        self.expected += counts.expected
        self.actual += counts.actual
        for measure in MEASURES:
            value = counts.figure(measure)
            if value is not None:
                self.sums[measure] += value
                self.defined[measure] += 1

    def micro(self, measure: str) -> float | None:
        """The measure from the summed counts (``None``: its denominator is 0)."""
        return CaseCounts(self.matched, self.expected, self.actual).figure(measure)

    def macro(self, measure: str) -> float | None:
        """The mean of the cases' own figures where defined (``None``: none is)."""
        n = self.defined[measure]
        return self.sums[measure] / n if n else None

    def as_dict(self) -> dict[str, Any]:
        """The figures as the JSON report and the run record keep them."""

        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 6)

        return {
            "micro": {m: rounded(self.micro(m)) for m in MEASURES},
            "macro": {m: rounded(self.macro(m)) for m in MEASURES},
            "macro_cases": dict(self.defined),
            "cases": self.cases,
            "errors": self.errors,
            "without_counts": self.without_counts,
            "matched": self.matched,
            "expected": self.expected,
            "actual": self.actual,
        }


def findings_rows(bodies: Iterable[Any]) -> dict[str, FindingsTally]:
    """Every findings claim's tally over stored row bodies (dicts read from the store),
    in the order the claims first appear: what the run's own report computed."""
    tallies: dict[str, FindingsTally] = {}
    for body in bodies:
        if not isinstance(body, Mapping) or not is_findings_row(body.get("evidence")):
            continue
        tally = tallies.setdefault(str(body.get("claim_id")), FindingsTally())
        tally.add(str(body.get("status")), body["evidence"])
    return tallies


def _pct(value: Any) -> str:
    return f"{value:.1%}" if isinstance(value, int | float) else "—"


def findings_lines(record: Any) -> list[str]:
    """Each findings claim's averages in a line, from ``{claim: FindingsTally.as_dict()}``
    as reports and the run record keep them: ``findings: micro recall 66.7%, precision
    50.0%, F1 57.1%; macro ... (2 cases; 1 error)``; none for a run without one."""
    if not isinstance(record, Mapping):
        return []
    lines = []
    for claim, figures in record.items():
        if not isinstance(figures, Mapping):
            continue
        parts = []
        for kind in ("micro", "macro"):
            values = figures.get(kind) or {}
            shown = ", ".join(f"{'F1' if m == 'f1' else m} {_pct(values.get(m))}" for m in MEASURES)
            parts.append(f"{kind} {shown}")
        cases = figures.get("cases", 0)
        notes = [f"{cases} case{'' if cases == 1 else 's'}"]
        left = {m: cases - n for m, n in (figures.get("macro_cases") or {}).items() if n != cases}
        if left:
            notes.append(
                "macro leaves out " + ", ".join(f"{n} undefined {m}" for m, n in left.items())
            )
        for key, word in (("errors", "not checked (error)"), ("without_counts", "redacted")):
            if figures.get(key):
                notes.append(f"{figures[key]} {word}")
        lines.append(f"{claim}: {'; '.join(parts)} ({'; '.join(notes)})")
    return lines
