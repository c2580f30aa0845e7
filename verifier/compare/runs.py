"""Pairing the stored gap rows of two runs into per-claim paired outcomes.

Two runs of one contract over the same cases give, for each claim, one *pair* per
case: the claim's status in the baseline and in the candidate, matched on
``(case_id, claim_id)``. Only pass/fail pairs say anything about quality: a pair in
which either row is ``error`` (no verdict could be had) or ``skipped`` (a gate before
the claim failed, or the claim did not apply to the case) is counted and left out.
Rows are read from the row bodies, the hash-chained truth that ``verifier audit``
checks, not from the index columns beside them.

Memory: the baseline's outcomes are held (two strings and a status per row) while the
candidate's rows stream past them and are folded into counts at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import orjson

from verifier.compare.judge_changes import JudgeChange, JudgesSeen, judge_changes
from verifier.compare.run_checks import CompareError, RunInfo, check_runs, run_info
from verifier.compare.signed_rank import score_difference
from verifier.compare.stats import PairedTable
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage
from verifier.results import ClaimTally, stored_outcome

__all__ = ["CompareError", "OutcomePairs", "PairedRuns", "RunInfo", "pair_runs"]


@dataclass(frozen=True, slots=True)
class OutcomePairs:
    """The paired outcomes of one claim (or of whole cases) over the two runs.

    Attributes:
        name: The claim id, or ``OVERALL`` for whole cases.
        table: The pass/fail pairs as a paired 2x2 table.
        score_differences: Candidate minus baseline score of every pass/fail pair, exact:
            between the fractions the stored scores stand for
            (``signed_rank.exact_score``), so differences equal on paper tie.
        graded: Some paired score is strictly between 0 and 1, so scores carry more
            than pass/fail and a signed-rank test on them means something.
        errors: Pairs left out because a row of either run is an error.
        skipped: Pairs left out because a row of either run was skipped (none an error).
    """

    name: str
    table: PairedTable
    score_differences: tuple[Fraction, ...]
    graded: bool
    errors: int
    skipped: int


@dataclass(frozen=True, slots=True)
class PairedRuns:
    """Everything pairing two runs found, before any statistic is computed.

    Attributes:
        claims: One entry per claim the two runs share, in the baseline's order.
        overall: Whole cases: a case passes in a run when every claim shared by both
            runs passed for it; its score is the share of those claims that passed; a
            case with an error row in either run is left out.
        paired_cases: Cases present in both runs.
        cases_only_in_baseline: Cases the candidate has no row for (left out).
        cases_only_in_candidate: Cases the baseline has no row for (left out).
        duplicate_rows: Rows repeating a ``(case_id, claim_id)`` already seen in the
            same run (the first is used), per side.
        warnings: Things a reader should know that do not stop the comparison.
        tallies: Each run's own tally of every claim (baseline, candidate), counted as
            its report counts them: over its checked results, paired or not.
        judge_changes: The shared claims judged under other judges in the two runs,
            each with the recorded successions that explain it, if any.
    """

    baseline: RunInfo
    candidate: RunInfo
    claims: tuple[OutcomePairs, ...]
    overall: OutcomePairs
    paired_cases: int
    cases_only_in_baseline: int
    cases_only_in_candidate: int
    claims_only_in_baseline: tuple[str, ...]
    claims_only_in_candidate: tuple[str, ...]
    duplicate_rows: dict[str, int]
    warnings: tuple[str, ...]
    tallies: tuple[dict[str, ClaimTally], dict[str, ClaimTally]]
    judge_changes: tuple[JudgeChange, ...] = ()


_NOT_APPLICABLE = "not applicable"
"""The status a row is paired under when its claim did not apply to the case."""

_NOT_CHECKED = ("skipped", _NOT_APPLICABLE)

OVERALL = "all claims"
"""Name of the whole-case outcome, which is no claim id (claim ids cannot hold spaces)."""


@dataclass(slots=True)
class _Tally:
    """Counts of one claim (or of whole cases) as the candidate's rows stream in."""

    cells: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    differences: list[Fraction] = field(default_factory=list)
    graded: bool = False
    errors: int = 0
    skipped: int = 0

    def add(self, baseline: str, candidate: str, base_score: float, cand_score: float) -> None:
        if baseline == "error" or candidate == "error":
            self.errors += 1
            return
        if baseline in _NOT_CHECKED or candidate in _NOT_CHECKED:
            self.skipped += 1
            return
        # cells: both pass, baseline only, candidate only, both fail
        base_pass, cand_pass = baseline == "pass", candidate == "pass"
        if base_pass and cand_pass:
            self.cells[0] += 1
        elif base_pass:
            self.cells[1] += 1
        elif cand_pass:
            self.cells[2] += 1
        else:
            self.cells[3] += 1
        self.differences.append(score_difference(cand_score, base_score))
        if not self.graded and (base_score not in (0.0, 1.0) or cand_score not in (0.0, 1.0)):
            self.graded = True

    def freeze(self, name: str) -> OutcomePairs:
        return OutcomePairs(
            name,
            PairedTable(*self.cells),
            tuple(self.differences),
            self.graded,
            self.errors,
            self.skipped,
        )


@dataclass(slots=True)
class _CaseTally:
    """One case's rows in both runs, over the claims paired so far."""

    base_error: bool = False
    cand_error: bool = False
    base_passed: int = 0
    cand_passed: int = 0
    claims: int = 0

    def add(self, baseline: str, candidate: str) -> None:
        if _NOT_APPLICABLE in (baseline, candidate):
            return  # a claim that did not apply to the case says nothing of it
        self.claims += 1
        self.base_error = self.base_error or baseline == "error"
        self.cand_error = self.cand_error or candidate == "error"
        self.base_passed += baseline == "pass"
        self.cand_passed += candidate == "pass"


def _outcome(body: dict[str, Any], tallies: dict[str, ClaimTally]) -> tuple[str, str, str, float]:
    """``(case_id, claim_id, status, score)`` of a row body, read as every tally reads a
    stored row (``results.stored_outcome``: a bad status is an error), and counted in
    ``tallies``; a score the row lacks is 1 for a pass, else 0."""
    status, not_applicable, score = stored_outcome(body)
    claim_id = str(body.get("claim_id"))
    tally = tallies.get(claim_id)
    if tally is None:
        tally = tallies[claim_id] = ClaimTally()
    tally.add(status, not_applicable, score)
    paired = _NOT_APPLICABLE if not_applicable else status
    if score is None:
        score = 1.0 if status == "pass" else 0.0
    return str(body.get("case_id")), claim_id, paired, score


def pair_runs(
    store: GapStore, baseline_id: str, candidate_id: str, *, lineage: Lineage | None = None
) -> PairedRuns:
    """Pairs the rows of two runs of one contract by ``(case_id, claim_id)``.

    ``lineage`` is the judge successions (default: the store's): a judge that
    differs between the runs by a recorded succession is named so, with its trial.

    Raises:
        CompareError: A run is not in the store, the runs checked different contracts
            (by contract id; a changed contract file is only a warning), or they share
            no case.
    """
    baseline = run_info(store, baseline_id, "baseline")
    candidate = run_info(store, candidate_id, "candidate")
    warnings = check_runs(baseline, candidate)

    judges = (JudgesSeen(), JudgesSeen())
    tallies: tuple[dict[str, ClaimTally], dict[str, ClaimTally]] = ({}, {})
    held, claim_order, baseline_duplicates = _hold_baseline(
        store, baseline_id, judges[0], tallies[0]
    )
    stream = _CandidateStream()
    for row in store.iter_rows(candidate_id):
        body = orjson.loads(row.body)
        outcome = _outcome(body, tallies[1])
        judges[1].note(body, outcome[1])
        stream.fold(held, *outcome)

    baseline_cases = {case_id for case_id, _ in held}
    candidate_cases, candidate_claims = stream.case_ids, stream.claim_ids
    if not baseline_cases & candidate_cases:
        raise CompareError(
            f"runs {baseline_id} and {candidate_id} have no case id in common: a comparison "
            "needs both runs over the same cases"
        )
    shared = [c for c in claim_order if c in candidate_claims]
    changes = judge_changes(
        shared,
        *judges,
        lineage=Lineage.of_store(store) if lineage is None else lineage,
        contract_id=baseline.contract_id,
    )
    claims = tuple((stream.tallies.get(c) or _Tally()).freeze(c) for c in shared)
    return PairedRuns(
        baseline=baseline,
        candidate=candidate,
        claims=claims,
        overall=_overall(stream.cases.values()),
        paired_cases=len(baseline_cases & candidate_cases),
        cases_only_in_baseline=len(baseline_cases - candidate_cases),
        cases_only_in_candidate=len(candidate_cases - baseline_cases),
        claims_only_in_baseline=tuple(c for c in claim_order if c not in candidate_claims),
        claims_only_in_candidate=tuple(c for c in candidate_claims if c not in claim_order),
        duplicate_rows={"baseline": baseline_duplicates, "candidate": stream.duplicates},
        warnings=(*warnings, *(w for c in changes for w in c.warnings(baseline_id, candidate_id))),
        tallies=tallies,
        judge_changes=tuple(changes),
    )


Held = dict[tuple[str, str], list[Any]]
"""The baseline's outcomes: ``(case_id, claim_id) -> [status, score, paired yet?]``."""


def _hold_baseline(
    store: GapStore,
    run_id: str,
    judges: JudgesSeen,
    tallies: dict[str, ClaimTally],
) -> tuple[Held, dict[str, None], int]:
    """The baseline's outcomes, its claims in order of appearance, and its duplicates."""
    held: Held = {}
    claim_order: dict[str, None] = {}
    duplicates = 0
    for row in store.iter_rows(run_id):
        body = orjson.loads(row.body)
        case_id, claim_id, status, score = _outcome(body, tallies)
        judges.note(body, claim_id)
        key = (case_id, claim_id)
        if key in held:
            duplicates += 1
            continue
        held[key] = [status, score, False]
        claim_order.setdefault(claim_id, None)
    return held, claim_order, duplicates


@dataclass(slots=True)
class _CandidateStream:
    """Folds the candidate's rows, one at a time, into counts against the baseline."""

    tallies: dict[str, _Tally] = field(default_factory=dict)
    cases: dict[str, _CaseTally] = field(default_factory=dict)
    case_ids: set[str] = field(default_factory=set)
    claim_ids: dict[str, None] = field(default_factory=dict)
    unpaired: set[tuple[str, str]] = field(default_factory=set)
    duplicates: int = 0

    def fold(self, held: Held, case_id: str, claim_id: str, status: str, score: float) -> None:
        self.case_ids.add(case_id)
        self.claim_ids.setdefault(claim_id, None)
        key = (case_id, claim_id)
        entry = held.get(key)
        if entry is None:
            self.duplicates += key in self.unpaired
            self.unpaired.add(key)
            return
        if entry[2]:
            self.duplicates += 1
            return
        entry[2] = True
        tally = self.tallies.get(claim_id)
        if tally is None:
            tally = self.tallies[claim_id] = _Tally()
        tally.add(entry[0], status, entry[1], score)
        case = self.cases.get(case_id)
        if case is None:
            case = self.cases[case_id] = _CaseTally()
        case.add(entry[0], status)


def _overall(cases: Iterable[_CaseTally]) -> OutcomePairs:
    """Whole cases as pass/fail pairs, scored by the share of claims that passed."""
    tally = _Tally()
    for case in cases:
        if not case.claims:
            continue  # no shared claim applied to the case: nothing to pair
        base = "error" if case.base_error else "pass" if case.base_passed == case.claims else "fail"
        cand = "error" if case.cand_error else "pass" if case.cand_passed == case.claims else "fail"
        tally.add(base, cand, case.base_passed / case.claims, case.cand_passed / case.claims)
    return tally.freeze(OVERALL)
