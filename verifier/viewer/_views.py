"""What the run and case pages show, built from the browse queries and the reports' parts.

A result is shown as the static report shows one (``ResultView``): reason and evidence
cut to size, the case's input and output (and the fields its evidence points into)
with the span that decided it marked. Per-claim figures come from the run's stored
summary, so a run page reads no row beyond the page of results it lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, TypeGuard
from urllib.parse import urlencode

from verifier.analyses.browse import ResultRow
from verifier.report._case_content import (
    CaseContent,
    ContentReader,
    FieldView,
    field_views,
    result_fields,
)
from verifier.report._claim_notes import ClaimNote
from verifier.report._run_view import CONTENT_CHARS, ResultView, result_view
from verifier.report._spans import deciding_spans
from verifier.results import ClaimTally, wilson_95

__all__ = [
    "STATUSES",
    "BackTrail",
    "ClaimLine",
    "case_fields",
    "claim_lines",
    "query",
    "results_in_summary",
    "shown_result",
]

STATUSES: Final = ("pass", "fail", "error", "skipped")
TRAIL_LENGTH: Final = 50
"""Pages a run page remembers for its "previous" link; further back, "first page"."""


@dataclass(frozen=True, slots=True)
class ClaimLine:
    """One claim's figures over a run, from its stored summary.

    Attributes:
        tally: Its results by status; the pass rate is the tally's, over the checked
            results.
        low: Lower end of the pass rate's 95% Wilson interval.
        high: Upper end of it.
    """

    claim_id: str
    description: str | None
    tally: ClaimTally
    low: float
    high: float

    @property
    def pass_rate(self) -> float | None:
        return self.tally.pass_rate


def _count(value: Any) -> int:
    return value if _is_int(value) and value >= 0 else 0


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def claim_lines(summary: Mapping[str, Any], notes: Mapping[str, ClaimNote]) -> list[ClaimLine]:
    """Each claim of the summary's ``assertion_breakdown``, in its order (empty for a
    run that has not recorded its end)."""
    breakdown = summary.get("assertion_breakdown")
    lines = []
    for claim_id, raw in breakdown.items() if isinstance(breakdown, Mapping) else ():
        if not isinstance(raw, Mapping):
            continue
        skipped = _count(raw.get("skipped"))
        tally = ClaimTally(
            passed=_count(raw.get("passed")),
            failed=_count(raw.get("failed")),
            errors=_count(raw.get("errors")),
            skipped=skipped,
            not_applicable=min(_count(raw.get("not_applicable")), skipped),
        )
        low, high = wilson_95(tally.passed, tally.checked)
        note = notes.get(claim_id)
        lines.append(ClaimLine(str(claim_id), note.description if note else None, tally, low, high))
    return lines


def results_in_summary(lines: Sequence[ClaimLine]) -> int:
    """How many results the run's claims hold in all."""
    return sum(c.tally.total for c in lines)


def shown_result(
    row: ResultRow, contents: ContentReader | None, note: ClaimNote | None
) -> ResultView:
    """One result as shown: reason and evidence cut to size and, read with
    ``contents``, the case's fields with the spans that decided it marked (none
    without: the case page shows the case once, above its results)."""
    shown = result_view(row, row.reason, row.evidence, note)
    if contents is None:
        return shown
    content = contents.read(row.content_sha256)
    fields = result_fields(content, row.evidence, note, CONTENT_CHARS)
    return replace(shown, fields=fields, content_note=content.note)


def case_fields(
    rows: Sequence[ResultRow], content: CaseContent, paths: Sequence[str], limit: int
) -> tuple[FieldView, ...]:
    """A case's fields ``paths`` (and those a span points into) as one page shows the
    case once beside its results: the spans that decided its failing results marked."""
    failing = [s for r in rows if r.status != "pass" for s in deciding_spans(r.evidence)]
    return field_views(content, failing, limit, paths)


def query(**values: Any) -> str:
    """A query string of the values that are set (``?a=1&b=x``, or ``""``)."""
    kept = {k: v for k, v in values.items() if v is not None and v != ""}
    return f"?{urlencode(kept)}" if kept else ""


@dataclass(frozen=True, slots=True)
class BackTrail:
    """The ``after`` of the pages before the current one, carried in the ``back``
    parameter (keyset pages cannot be counted backwards): ``-`` is the first page.

    Attributes:
        afters: Oldest first; ``None`` for the first page.
    """

    afters: tuple[int | None, ...]

    @classmethod
    def parse(cls, text: str) -> BackTrail:
        afters: list[int | None] = []
        for part in text.split(","):
            if part == "-":
                afters.append(None)
            elif part.isascii() and part.isdigit():
                afters.append(int(part))
        return cls(tuple(afters[-TRAIL_LENGTH:]))

    def text(self) -> str:
        return ",".join("-" if a is None else str(a) for a in self.afters)

    def forward(self, current: int | None) -> BackTrail:
        """The trail of the next page, leaving the page whose ``after`` is ``current``."""
        return BackTrail((*self.afters, current)[-TRAIL_LENGTH:])

    def previous(self) -> tuple[int | None, BackTrail] | None:
        """The ``after`` of the page before and that page's trail (``None`` when the
        trail does not reach back: the "first page" link remains)."""
        if not self.afters:
            return None
        return self.afters[-1], BackTrail(self.afters[:-1])
