"""One stored run, read back for the HTML report: totals, claims, judges, failing results.

The rows are streamed once, in seq order. Memory grows with the claims and the judge
triples they were judged under, plus at most ``max_results`` results that did not pass
(each with its reason and evidence cut to a bounded size); never with the run's rows.
A pass row of a rubric claim is counted from its columns alone, without parsing its
body, so a large run costs little more than reading it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeGuard

import orjson

from verifier.gaps.row import TRIPLE_PARTS, TRIPLE_REQUIRED_STATUSES, needs_triple
from verifier.gaps.store import GapStore, RunRecord, StoredRow
from verifier.judge_summary import JudgeClaimsNotRun
from verifier.report._case_content import (
    ContentReader,
    FieldView,
    pretty_json,
    result_fields,
)
from verifier.report._claim_notes import ClaimNote, claim_notes, judge_saw, scale_verdict
from verifier.results import ClaimTally, JudgeNoise, row_not_applicable

__all__ = [
    "CONTENT_BUDGET",
    "CONTENT_CHARS",
    "EVIDENCE_CHARS",
    "MAX_RESULTS",
    "REASON_CHARS",
    "CaseTotals",
    "ClaimView",
    "JudgeTriple",
    "ResultView",
    "RunView",
    "read_run",
    "result_view",
]

MAX_RESULTS = 2000
"""Results that did not pass shown at most; the rest are counted, so the file stays a
few megabytes however large the run."""
EVIDENCE_CHARS = 4000
"""Characters of one result's pretty-printed evidence shown; the rest is counted."""
REASON_CHARS = 2000
"""Characters of one reason shown (a reason may quote a whole LLM output)."""
CONTENT_CHARS = 1500
"""Characters of one field of a case shown with a result (a window around what decided it)."""
CONTENT_BUDGET = 2_000_000
"""Characters of case content the page shows in all; later results point to ``verifier show``."""

_JUDGED_KINDS = frozenset({"judge", "comparative"})


@dataclass(frozen=True, slots=True)
class JudgeTriple:
    """Who judged a claim: the stability triple, with the judge's name and the model
    the contract asked for (``None`` when the evidence does not say)."""

    model_id: str
    prompt_sha: str
    sampling_sha: str
    judge_name: str | None
    requested_model: str | None


@dataclass(slots=True)
class ClaimView:
    """One claim across the run: its tally and, for judged claims, who judged it."""

    claim_id: str
    kind: str
    description: str | None = None
    tally: ClaimTally = field(default_factory=ClaimTally)
    triples: Counter[JudgeTriple] = field(default_factory=Counter)
    missing_triple: int = 0
    """Verdicts (pass or fail) whose evidence lacks part of the triple."""
    noise: JudgeNoise = field(default_factory=JudgeNoise)
    """Pass rate, position flips and sample agreement of the judged verdicts."""


@dataclass(frozen=True, slots=True)
class ResultView:
    """A result that did not pass, as shown: reason and evidence already cut to size."""

    seq: int
    case_id: str
    claim_id: str
    kind: str
    status: str
    score: float | None
    reason: str
    evidence: str
    scale: str | None = None
    """A scale judge's verdict on its scale (``2/5``)."""
    fields: tuple[FieldView, ...] = ()
    """The case's input, output and the fields the evidence points into."""
    content_note: str | None = None
    """Why the case's content is not shown, when it is not."""
    saw: str | None = None
    """A judge claim's: the case fields its judge was shown (``judge_saw``)."""


@dataclass(slots=True)
class RunView:
    """What the HTML report of one run shows.

    Attributes:
        record: The run as the store recorded it (its summary holds the case totals
            when the run ended, finished or interrupted).
        claims: Every claim, in the order its first row appears.
        results: The first ``limit`` results that are not passes, in seq order.
        not_passed: How many results are not passes (shown or not).
    """

    record: RunRecord
    location: str
    limit: int
    claims: dict[str, ClaimView] = field(default_factory=dict)
    results: list[ResultView] = field(default_factory=list)
    rows: int = 0
    not_passed: int = 0
    content_budget: int = CONTENT_BUDGET
    """Characters of case content the page may show in all."""
    content_chars: int = 0
    """Characters of case content shown so far."""

    @property
    def verdict(self) -> str | None:
        """``PASS`` when the run finished with every case passed, ``FAIL`` when a case
        failed or the run did not finish, ``None`` when it recorded no totals."""
        totals = self.case_totals
        if totals is None:
            return None
        ok = self.record.status == "finished" and totals.failed_cases == 0
        return "PASS" if ok else "FAIL"

    head: str | None = None
    """The store's head right after the run's end was sealed (``None`` before it ends)."""

    @property
    def left_out(self) -> int:
        return self.not_passed - len(self.results)

    @property
    def case_totals(self) -> CaseTotals | None:
        """The case totals the run recorded when it ended, or ``None`` (still running,
        killed before it could record them, or a run that records none: an import)."""
        return CaseTotals.of(self.record.summary)

    @property
    def not_run(self) -> str | None:
        """``judge claims not run: 2 (--judges off)`` when the run left claims needing a
        judge unchecked on purpose (a run that recorded no totals says only why)."""
        stored = JudgeClaimsNotRun.of(self.record.summary.get("judge_claims_not_run"))
        if stored.count:
            return stored.line()
        if self.record.options.get("judges") == "off":
            return "judge claims not run (--judges off)"
        return None

    @property
    def warnings(self) -> list[str]:
        """The warnings the run recorded when it ended (a path that found nothing)."""
        stored = self.record.summary.get("warnings")
        return [w for w in stored if isinstance(w, str)] if isinstance(stored, list) else []

    @property
    def threshold(self) -> float | None:
        for source in (self.record.summary, self.record.options):
            value = source.get("threshold")
            if _is_number(value):
                return float(value)
        return None


@dataclass(frozen=True, slots=True)
class CaseTotals:
    """What a run's summary says of its cases (a part it lacks is ``None``)."""

    total_cases: int
    passed_cases: int | None
    failed_cases: int | None
    average_score: float | None

    @classmethod
    def of(cls, summary: dict[str, Any]) -> CaseTotals | None:
        """The totals in a run's stored summary; ``None`` without a case count."""
        total = summary.get("total_cases")
        if not _is_count(total):
            return None
        passed, failed = summary.get("passed_cases"), summary.get("failed_cases")
        average = summary.get("average_score")
        return cls(
            total,
            passed if _is_count(passed) else None,
            failed if _is_count(failed) else None,
            float(average) if _is_number(average) else None,
        )


def _is_count(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_run(
    store: GapStore,
    record: RunRecord,
    *,
    max_results: int = MAX_RESULTS,
    content_budget: int = CONTENT_BUDGET,
) -> RunView:
    """Reads one run's rows into the view the HTML report shows.

    Args:
        store: The store holding the run.
        record: The run, from ``store.run`` or ``store.last_run``.
        max_results: How many results that did not pass to keep.
        content_budget: Characters of case content shown in all; results beyond it
            name the ``verifier show`` command that shows their case.
    """
    view = RunView(record, store.location, max_results, content_budget=content_budget)
    sealed = store.run_seal(record.run_id)
    view.head = sealed.seal_hash if sealed is not None and sealed.kind == "end" else None
    claims = view.claims
    notes = claim_notes(store, record)
    contents = ContentReader(store)
    for row in store.iter_rows(record.run_id):
        view.rows += 1
        claim = claims.get(row.claim_id)
        if claim is None:
            note = notes.get(row.claim_id)
            claim = claims[row.claim_id] = ClaimView(
                row.claim_id, row.kind, note.description if note else None
            )
        judged = row.kind in _JUDGED_KINDS
        if row.status == "pass" and not judged:
            claim.tally.add("pass")
            continue
        body = _body(row)
        absent = row_not_applicable(body)
        claim.tally.add(row.status, absent)  # type: ignore[arg-type]
        if absent:
            continue  # not checked, so not a result to look into
        if judged:
            _note_judge(claim, body)
        if row.status != "pass":
            view.not_passed += 1
            if len(view.results) < max_results:
                note = notes.get(row.claim_id)
                result = _result(row, body, note)
                view.results.append(_with_content(view, result, body, contents, note))
    return view


def _body(row: StoredRow) -> dict[str, Any]:
    try:
        body = orjson.loads(row.body)
    except orjson.JSONDecodeError:
        return {}
    return body if isinstance(body, dict) else {}


def _note_judge(claim: ClaimView, body: dict[str, Any]) -> None:
    evidence = body.get("evidence")
    judge = evidence.get("judge") if isinstance(evidence, dict) else None
    if isinstance(evidence, dict) and isinstance(judge, dict):
        model_id, prompt_sha, sampling_sha = (judge.get(part) for part in TRIPLE_PARTS)
        if all(isinstance(p, str) and p.strip() for p in (model_id, prompt_sha, sampling_sha)):
            name, requested = evidence.get("judge_name"), evidence.get("requested_model")
            triple = JudgeTriple(
                str(model_id),
                str(prompt_sha),
                str(sampling_sha),
                judge_name=name if isinstance(name, str) and name else None,
                requested_model=requested if isinstance(requested, str) and requested else None,
            )
            claim.triples[triple] += 1
            claim.noise.add(str(body.get("status")), evidence)
            return
    # Error and skipped rows need no triple (no verdict was had); a verdict without one
    # breaks the triple rule, which the audit reports.
    if needs_triple(body) and body.get("status") in TRIPLE_REQUIRED_STATUSES:
        claim.missing_triple += 1


def _result(row: StoredRow, body: dict[str, Any], note: ClaimNote | None) -> ResultView:
    reason = body.get("reason")
    return result_view(
        row, reason if isinstance(reason, str) else "", body.get("evidence", {}), note
    )


class ShownRow(Protocol):
    """The columns of a row a result is shown with (a stored row, a browsed one)."""

    @property
    def seq(self) -> int: ...
    @property
    def case_id(self) -> str: ...
    @property
    def claim_id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def score(self) -> float | None: ...


def result_view(row: ShownRow, reason: str, evidence: Any, note: ClaimNote | None) -> ResultView:
    """A result as shown, its reason and evidence cut to size (no case content yet)."""
    return ResultView(
        seq=row.seq,
        case_id=row.case_id,
        claim_id=row.claim_id,
        kind=row.kind,
        status=row.status,
        score=row.score,
        reason=cut(reason, REASON_CHARS),
        evidence=cut(pretty_json(evidence), EVIDENCE_CHARS),
        scale=scale_verdict(evidence, row.score, note) if row.kind == "judge" else None,
        saw=judge_saw(note) if row.kind == "judge" else None,
    )


def _with_content(
    view: RunView,
    result: ResultView,
    body: dict[str, Any],
    contents: ContentReader,
    note: ClaimNote | None,
) -> ResultView:
    if view.content_chars >= view.content_budget:
        show = f"verifier show {view.record.run_id} {result.case_id}"
        return replace(result, content_note=f"left out to keep the page small: {show}")
    sha = body.get("content_sha256")
    content = contents.read(sha if isinstance(sha, str) else None)
    fields = result_fields(content, body.get("evidence"), note, CONTENT_CHARS)
    view.content_chars += sum(len(text) for f in fields for _, text in f.segments)
    return replace(result, fields=fields, content_note=content.note)


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
