"""Is the candidate better or worse than the baseline, claim by claim, and is it real?

The design is paired: both runs checked the same cases, so each claim gives one
pass/fail pair per case and only the *discordant* pairs (passed in one run, failed in
the other) carry evidence of a change. For each claim, and for whole cases:

- the pass rates and their difference (candidate minus baseline) with Newcombe's
  square-and-add 95% interval for paired data (``stats.newcombe_paired_interval``);
- the exact McNemar test on the discordant pairs (``stats.mcnemar_exact_p``);
- for graded scores, Wilcoxon's signed-rank test on the paired score differences,
  which sees movement within pass or fail that McNemar cannot;
- Holm's step-down correction across the family (every claim, plus whole cases when
  there is more than one claim), so testing many claims does not manufacture a
  regression out of noise;
- a verdict: ``better`` or ``worse`` when the Holm-adjusted McNemar p-value is at most
  alpha, otherwise ``no detectable change``, which is not the same as no change;
- the exact power of that test at the pairs there are, and the paired cases at which
  it would reach 80% power, both at the observed discordant rates (``power``); they
  need the ``stats`` extra (numpy, scipy), and without it they are left out (``None``,
  with ``RunComparison.power_figures`` false) while the tests and verdicts, in exact
  arithmetic, stand.

A claim with so few discordant pairs that even the most lopsided split could not reach
alpha (fewer than six at alpha 0.05) cannot be significant under any correction; such
claims are left out of the family, as Tarone (1990, "A modified Bonferroni method for
discrete data", Biometrics 46:515-522) proposed for discrete tests, so a contract full
of claims that never change does not dilute the ones that do. Conditional on the
discordant counts, which is how the exact McNemar test is defined, this keeps Holm's
family-wise error control.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from verifier._internal.extras import extra_installed, install_command
from verifier.compare.power import mcnemar_cases_needed, mcnemar_power, min_discordant
from verifier.compare.runs import OutcomePairs, PairedRuns, pair_runs
from verifier.compare.signed_rank import wilcoxon_signed_rank
from verifier.compare.stats import (
    PairedTable,
    holm_adjust,
    mcnemar_exact_p,
    newcombe_paired_interval,
)
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage

__all__ = [
    "ALPHA",
    "POWER",
    "POWER_FIGURES_MISSING",
    "ClaimComparison",
    "RunComparison",
    "ScoreShift",
    "Verdict",
    "compare_paired",
    "compare_runs",
]

Verdict = Literal["better", "worse", "no detectable change"]

ALPHA = 0.05
"""Family-wise significance level of the verdicts (two-sided)."""
POWER = 0.80
"""Power the sample-size figure is computed for."""
POWER_FIGURES_MISSING = (
    "power and cases needed were not computed: they need the stats extra "
    f"({install_command('stats')})"
)
"""What a comparison says when the ``stats`` extra is missing."""


@dataclass(frozen=True, slots=True)
class ScoreShift:
    """Wilcoxon's signed-rank test on the paired scores of a graded claim.

    Attributes:
        nonzero: Pairs whose scores differ (the rest carry no rank).
        statistic: The smaller signed-rank sum.
        median_difference: Median of candidate minus baseline score over all pairs.
        p_value: Two-sided p-value.
        p_adjusted: Holm-adjusted across the graded claims that have a nonzero pair.
        method: ``exact`` or ``normal`` (see ``signed_rank``); ``none`` without a
            nonzero pair.
    """

    nonzero: int
    statistic: float
    median_difference: float
    p_value: float
    p_adjusted: float
    method: str


@dataclass(frozen=True, slots=True)
class ClaimComparison:
    """One claim (or whole cases) compared between the two runs.

    Attributes:
        name: The claim id, or ``runs.OVERALL`` for whole cases.
        table: The paired pass/fail outcomes.
        errors: Pairs left out because a row is an error.
        skipped: Pairs left out because a row was skipped.
        interval: 95% interval of the difference in pass rates (candidate - baseline).
        p_value: Exact McNemar p-value, unadjusted.
        p_adjusted: Holm-adjusted p-value; ``None`` when the discordant pairs are too
            few for any split to reach alpha, so the claim was not in the family.
        verdict: ``better``, ``worse`` or ``no detectable change``.
        cases_needed: Smallest number of paired cases at which the exact McNemar test
            at alpha has the comparison's power, at the observed discordant rates;
            ``None`` when no difference was observed or more than
            ``power.MAX_CASES`` would be needed (then ``cases_needed_beyond`` says so).
        cases_needed_beyond: The largest size searched when none had the power (a
            difference needing more cases than that), else ``None``.
        power: Exact power of the test at alpha with the pairs there are, at the
            observed discordant rates; ``None`` when no difference was observed or
            the power figures were not computed (``RunComparison.power_figures``).
        scores: The signed-rank test of graded scores; ``None`` for pass/fail scores.
    """

    name: str
    table: PairedTable
    errors: int
    skipped: int
    interval: tuple[float, float]
    p_value: float
    p_adjusted: float | None
    verdict: Verdict
    cases_needed: int | None
    cases_needed_beyond: int | None
    power: float | None
    scores: ScoreShift | None

    @property
    def discordant(self) -> int:
        """Pairs that passed in one run only: the test's evidence."""
        return self.table.baseline_only + self.table.candidate_only


@dataclass(frozen=True, slots=True)
class RunComparison:
    """The comparison of two runs: what was paired and what each claim shows.

    ``power_figures`` is false when the ``stats`` extra is not installed: no member's
    ``power`` and ``cases_needed`` were computed.
    """

    paired: PairedRuns
    claims: tuple[ClaimComparison, ...]
    overall: ClaimComparison | None
    alpha: float
    power: float
    power_figures: bool = True

    @property
    def warnings(self) -> tuple[str, ...]:
        """The pairing's warnings, and that the power figures are missing if they are."""
        if self.power_figures:
            return self.paired.warnings
        return (*self.paired.warnings, POWER_FIGURES_MISSING)

    @property
    def min_discordant(self) -> int:
        """Fewest discordant pairs with which a claim can be significant at ``alpha``."""
        return min_discordant(self.alpha)

    @property
    def untestable(self) -> tuple[ClaimComparison, ...]:
        """Members with a change whose discordant pairs cannot reach alpha in any split."""
        every = (*self.claims, *((self.overall,) if self.overall else ()))
        return tuple(c for c in every if 0 < c.discordant < self.min_discordant)

    @property
    def worse(self) -> tuple[ClaimComparison, ...]:
        """Claims (and whole cases) significantly worse in the candidate."""
        every = (*self.claims, *((self.overall,) if self.overall else ()))
        return tuple(c for c in every if c.verdict == "worse")


def compare_paired(
    paired: PairedRuns, *, alpha: float = ALPHA, power: float = POWER
) -> RunComparison:
    """Computes every statistic and verdict of already paired runs."""
    family = [*paired.claims, *((paired.overall,) if len(paired.claims) > 1 else ())]
    tables = [o.table for o in family]
    p_values = [mcnemar_exact_p(t.baseline_only, t.candidate_only) for t in tables]
    fewest = min_discordant(alpha)
    testable = [i for i, t in enumerate(tables) if t.baseline_only + t.candidate_only >= fewest]
    adjusted: list[float | None] = [None] * len(family)
    for i, p in zip(testable, holm_adjust([p_values[i] for i in testable]), strict=True):
        adjusted[i] = p

    shifts = _score_shifts(family)
    figures = extra_installed("stats")
    results = [
        _compare_one(
            o, p_values[i], adjusted[i], shifts[i], alpha=alpha, power=power if figures else None
        )
        for i, o in enumerate(family)
    ]
    claims = tuple(results[: len(paired.claims)])
    overall = results[-1] if len(results) > len(paired.claims) else None
    return RunComparison(paired, claims, overall, alpha, power, figures)


def _score_shifts(family: list[OutcomePairs]) -> list[ScoreShift | None]:
    """Signed-rank tests of the graded members, Holm-adjusted among themselves."""
    raw = {i: wilcoxon_signed_rank(o.score_differences) for i, o in enumerate(family) if o.graded}
    tested = [i for i, r in raw.items() if r.nonzero]
    adjusted = dict(zip(tested, holm_adjust([raw[i].p_value for i in tested]), strict=True))
    shifts: list[ScoreShift | None] = [None] * len(family)
    for i, r in raw.items():
        shifts[i] = ScoreShift(
            r.nonzero, r.statistic, r.median_difference, r.p_value, adjusted.get(i, 1.0), r.method
        )
    return shifts


def _compare_one(
    outcomes: OutcomePairs,
    p_value: float,
    p_adjusted: float | None,
    scores: ScoreShift | None,
    *,
    alpha: float,
    power: float | None,
) -> ClaimComparison:
    """One member's figures; its power and cases needed only with a ``power`` to reach."""
    table = outcomes.table
    verdict: Verdict = "no detectable change"
    if p_adjusted is not None and p_adjusted <= alpha and table.difference != 0:
        verdict = "better" if table.difference > 0 else "worse"
    needed = beyond = now = None
    if power is not None and table.pairs and table.baseline_only != table.candidate_only:
        rates = (table.baseline_only / table.pairs, table.candidate_only / table.pairs)
        found = mcnemar_cases_needed(*rates, alpha=alpha, power=power)
        needed = found.cases
        beyond = found.searched if found.beyond else None
        now = mcnemar_power(table.pairs, *rates, alpha=alpha)
    return ClaimComparison(
        name=outcomes.name,
        table=table,
        errors=outcomes.errors,
        skipped=outcomes.skipped,
        interval=newcombe_paired_interval(table, confidence=1.0 - alpha),
        p_value=p_value,
        p_adjusted=p_adjusted,
        verdict=verdict,
        cases_needed=needed,
        cases_needed_beyond=beyond,
        power=now,
        scores=scores,
    )


def compare_runs(
    store: GapStore,
    baseline_id: str,
    candidate_id: str,
    *,
    alpha: float = ALPHA,
    power: float = POWER,
    lineage: Lineage | None = None,
) -> RunComparison:
    """Compares two stored runs of one contract on the same cases.

    Args:
        store: The gap store holding both runs.
        baseline_id: Run A, the reference.
        candidate_id: Run B, the run under test; differences are B minus A.
        alpha: Family-wise significance level of the verdicts.
        power: Power the ``cases_needed`` figure is computed for.
        lineage: The judge successions (default: the store's): a judge that
            differs between the runs by a recorded succession is named so, with the
            trial's agreement and shift; without it, only that the judges differ.

    Raises:
        CompareError: A run is unknown, or the runs checked different contracts.
    """
    paired = pair_runs(store, baseline_id, candidate_id, lineage=lineage)
    return compare_paired(paired, alpha=alpha, power=power)
