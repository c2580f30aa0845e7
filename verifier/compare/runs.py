"""Pairing the stored gap rows of two runs into per-claim paired outcomes.

Two runs of one contract over the same cases give, for each claim, one *pair* per
case: the claim's status in the baseline and in the candidate, matched on
``(case_id, claim_id)``. Only pass/fail pairs say anything about quality: a pair in
which either row is ``error`` (no verdict could be had) or ``skipped`` (a gate before
the claim failed, or the claim did not apply to the case) is counted and left out.
Rows are read from the row bodies, the hash-chained truth that ``verifier audit``
checks, not from the index columns beside them.

Memory: both runs stream, a case at a time, through a merge join on case id
(``merge``): each pair is folded into its claim's counts at once, and what is kept
grows with the claims, not with the cases (the score differences, for Wilcoxon's test,
take a byte or so a pair: ``score_differences``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from verifier.compare.judge_changes import JudgeChange, judge_changes
from verifier.compare.merge import NOT_APPLICABLE, CaseRows, Outcome, RunSide, merge_cases
from verifier.compare.run_checks import CompareError, RunInfo, check_runs, run_info
from verifier.compare.score_differences import ScoreDifferences
from verifier.compare.signed_rank import score_difference
from verifier.compare.stats import PairedTable
from verifier.findings_tally import FindingsTally, findings_lines
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage
from verifier.results import ClaimTally

__all__ = [
    "CompareError",
    "OnPair",
    "OutcomePairs",
    "PairedRuns",
    "RunInfo",
    "changed_pairs",
    "pair_runs",
]


@dataclass(frozen=True, slots=True)
class OutcomePairs:
    """The paired outcomes of one claim (or of whole cases) over the two runs.

    Attributes:
        name: The claim id, or ``OVERALL`` for whole cases.
        table: The pass/fail pairs as a paired 2x2 table.
        score_differences: Candidate minus baseline score of every pass/fail pair, exact:
            between the fractions the stored scores stand for
            (``signed_rank.exact_score``), so differences equal on paper tie; in case
            id order, each distinct value kept once.
        graded: Some paired score is strictly between 0 and 1, so scores carry more
            than pass/fail and a signed-rank test on them means something.
        errors: Pairs left out because a row of either run is an error.
        skipped: Pairs left out because a row of either run was skipped (none an error).
    """

    name: str
    table: PairedTable
    score_differences: ScoreDifferences
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
        findings: Each run's findings claims' micro and macro counts (``findings_tally``).
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
    findings: tuple[dict[str, FindingsTally], dict[str, FindingsTally]] = ({}, {})

    def findings_lines(self) -> list[str]:
        """Each findings claim's micro and macro figures in each run, a line each."""
        return [
            f"findings ({side}) {line}"
            for side, tallies in zip(("baseline", "candidate"), self.findings, strict=True)
            for line in findings_lines({c: t.as_dict() for c, t in tallies.items()})
        ]


_NOT_CHECKED = ("skipped", NOT_APPLICABLE)

OVERALL = "all claims"
"""Name of the whole-case outcome, which is no claim id (claim ids cannot hold spaces)."""

OnPair = Callable[[str, str, Outcome, Outcome], None]
"""Told of every ``(case_id, claim_id)`` both runs have under two statuses: the two
runs' outcomes."""


@dataclass(slots=True)
class _Tally:
    """Counts of one claim (or of whole cases) as the pairs stream in."""

    cells: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    differences: ScoreDifferences = field(default_factory=ScoreDifferences)
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
        self.differences.append_keyed(
            (cand_score, base_score), lambda: score_difference(cand_score, base_score)
        )
        if not self.graded and (base_score not in (0.0, 1.0) or cand_score not in (0.0, 1.0)):
            self.graded = True

    def freeze(self, name: str) -> OutcomePairs:
        return OutcomePairs(
            name,
            PairedTable(*self.cells),
            self.differences,
            self.graded,
            self.errors,
            self.skipped,
        )


@dataclass(slots=True)
class _CaseTally:
    """One case's rows in both runs, over the claims paired."""

    base_error: bool = False
    cand_error: bool = False
    base_passed: int = 0
    cand_passed: int = 0
    claims: int = 0

    def add(self, baseline: str, candidate: str) -> None:
        if NOT_APPLICABLE in (baseline, candidate):
            return  # a claim that did not apply to the case says nothing of it
        self.claims += 1
        self.base_error = self.base_error or baseline == "error"
        self.cand_error = self.cand_error or candidate == "error"
        self.base_passed += baseline == "pass"
        self.cand_passed += candidate == "pass"

    def fold(self, overall: _Tally) -> None:
        """Adds the case to whole cases, scored by the share of its claims that passed."""
        if not self.claims:
            return  # no shared claim applied to the case: nothing to pair
        base = "error" if self.base_error else "pass" if self.base_passed == self.claims else "fail"
        cand = "error" if self.cand_error else "pass" if self.cand_passed == self.claims else "fail"
        overall.add(base, cand, self.base_passed / self.claims, self.cand_passed / self.claims)


@dataclass(slots=True)
class _Pairing:
    """The counts of the pairs, as the merge join yields the cases of both runs."""

    on_pair: OnPair | None
    tallies: dict[str, _Tally] = field(default_factory=dict)
    overall: _Tally = field(default_factory=_Tally)
    paired_cases: int = 0
    only: list[int] = field(default_factory=lambda: [0, 0])  # baseline, candidate

    def fold(self, case_id: str, base: CaseRows | None, cand: CaseRows | None) -> None:
        if base is None or cand is None:
            self.only[base is None] += 1
            return
        self.paired_cases += 1
        case = _CaseTally()
        for claim_id, theirs in cand.items():
            ours = base.get(claim_id)
            if ours is None:
                continue
            tally = self.tallies.get(claim_id)
            if tally is None:
                tally = self.tallies[claim_id] = _Tally()
            tally.add(ours[0], theirs[0], ours[1], theirs[1])
            case.add(ours[0], theirs[0])
            if self.on_pair is not None and ours[0] != theirs[0]:
                self.on_pair(case_id, claim_id, ours, theirs)
        case.fold(self.overall)


def _walk(
    store: GapStore,
    runs: tuple[str, str],
    sides: tuple[RunSide, RunSide],
    pairing: _Pairing,
    start: str | None,
) -> Iterator[str]:
    """Folds the cases of both runs into ``pairing``, from case id ``start`` on, in case
    id order; yields each case id once folded."""
    cases = merge_cases(
        sides[0].cases(store.iter_rows_by_case(runs[0], start=start)),
        sides[1].cases(store.iter_rows_by_case(runs[1], start=start)),
    )
    for case_id, base, cand in cases:
        pairing.fold(case_id, base, cand)
        yield case_id


def changed_pairs(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    on_pair: OnPair,
    *,
    start: str | None = None,
) -> Iterator[str]:
    """Tells ``on_pair`` of the pairs of two runs whose statuses differ, paired as
    ``pair_runs`` pairs them, case by case in case id order from case id ``start`` on
    (every case when ``None``); yields each case id once its pairs have been told.

    The runs are read only as far as the caller iterates, so a caller that stops after
    a few cases reads a few cases (a page of rows per run, ``GapStore.iter_rows_by_case``).

    Raises:
        CompareError: A run is not in the store, or the runs checked different contracts.
    """
    check_runs(run_info(store, baseline_id, "baseline"), run_info(store, candidate_id, "candidate"))
    sides = (RunSide(), RunSide())
    yield from _walk(store, (baseline_id, candidate_id), sides, _Pairing(on_pair), start)


def pair_runs(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    *,
    lineage: Lineage | None = None,
    on_pair: OnPair | None = None,
) -> PairedRuns:
    """Pairs the rows of two runs of one contract by ``(case_id, claim_id)``.

    ``lineage`` is the judge successions (default: the store's): a judge that
    differs between the runs by a recorded succession is named so, with its trial.
    ``on_pair``, if given, is told of every pair whose statuses differ as it is
    counted (in case id order).

    Raises:
        CompareError: A run is not in the store, the runs checked different contracts
            (by contract id; a changed contract file is only a warning), or they share
            no case.
    """
    baseline = run_info(store, baseline_id, "baseline")
    candidate = run_info(store, candidate_id, "candidate")
    warnings = check_runs(baseline, candidate)
    sides = (RunSide(), RunSide())
    pairing = _Pairing(on_pair)
    for _ in _walk(store, (baseline_id, candidate_id), sides, pairing, None):
        pass
    if not pairing.paired_cases:
        raise CompareError(
            f"runs {baseline_id} and {candidate_id} have no case id in common: a comparison "
            "needs both runs over the same cases"
        )
    claim_order, candidate_claims = sides[0].claim_order(), sides[1].claim_order()
    shared = [c for c in claim_order if c in candidate_claims]
    changes = judge_changes(
        shared,
        sides[0].judges,
        sides[1].judges,
        lineage=Lineage.of_store(store) if lineage is None else lineage,
        contract_id=baseline.contract_id,
    )
    return PairedRuns(
        baseline=baseline,
        candidate=candidate,
        claims=tuple((pairing.tallies.get(c) or _Tally()).freeze(c) for c in shared),
        overall=pairing.overall.freeze(OVERALL),
        paired_cases=pairing.paired_cases,
        cases_only_in_baseline=pairing.only[0],
        cases_only_in_candidate=pairing.only[1],
        claims_only_in_baseline=tuple(c for c in claim_order if c not in candidate_claims),
        claims_only_in_candidate=tuple(c for c in candidate_claims if c not in claim_order),
        duplicate_rows={"baseline": sides[0].duplicates, "candidate": sides[1].duplicates},
        warnings=(*warnings, *(w for c in changes for w in c.warnings(baseline_id, candidate_id))),
        tallies=(sides[0].ordered_tallies(), sides[1].ordered_tallies()),
        judge_changes=tuple(changes),
        findings=(sides[0].findings, sides[1].findings),
    )
