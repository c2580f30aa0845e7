"""What a trial measures of paired verdicts: the judge's, then the candidate's.

Each re-asked verdict is a pair (stored pass?, candidate pass?) and, for a claim on a
scale, a pair of scores. Over a set of pairs: the pass rate before and after with
their paired difference (candidate minus judge) and Newcombe's 95% interval for it,
and the exact McNemar p of the discordant pairs (``verifier.compare.stats``); for
pass/fail verdicts Cohen's kappa with its 95% Wald interval (``verifier.compare.
calibrate.cohens_kappa``, ``verifier.compare.agreement.kappa_interval``, the judge in
the place of the human labels); for scores quadratic weighted kappa with its Wald
interval (``agreement.weighted_kappa`` and ``weighted_kappa_interval``), the mean
shift of the scores and Wilcoxon's exact signed-rank p (``verifier.compare.
signed_rank``): the figures ``verifier calibrate`` and ``verifier compare`` give,
reused, not recomputed.

When no pair disagrees at all, the large-sample interval has width 0; kappa's lower
bound is then ``agreement.perfect_agreement_floor``: the disagreeing share bounded by
its exact Clopper-Pearson upper bound with none observed, each such disagreement taken
as the widest the scores allow, mapped through kappa with the observed marginals. A
perfect record on a few verdicts so gets a low bound, on many a high one.

A verdict is ``flipped`` when it changed: a pass/fail verdict turned round, a score
that moved (even within pass or within fail: the scale is what the judge is asked
for). ``agreement`` is the share not flipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Protocol

from verifier.compare.agreement import (
    kappa_interval,
    perfect_agreement_floor,
    weighted_kappa,
    weighted_kappa_interval,
)
from verifier.compare.calibrate import cohens_kappa, confusion_of
from verifier.compare.signed_rank import exact_score, wilcoxon_signed_rank
from verifier.compare.stats import PairedTable, mcnemar_exact_p, newcombe_paired_interval

__all__ = ["Figures", "Kind", "Scores", "figures_of", "measured"]

Kind = Literal["binary", "scale", "mixed"]
"""The verdicts a set of figures is of: pass/fail, scores, or both (a judge's whole
trial when it decides claims of both kinds)."""

IntervalMethod = Literal["wald", "zero-disagreement bound"]


@dataclass(frozen=True, slots=True)
class Figures:
    """The agreement of a candidate with a judge over paired verdicts.

    Attributes:
        table: The paired pass/fail table: ``baseline_only`` is a verdict the judge
            passed and the candidate failed (the candidate is stricter),
            ``candidate_only`` one the judge failed and the candidate passed (laxer).
        kind: ``binary``: kappa is Cohen's; ``scale`` or ``mixed``: quadratic
            weighted kappa of the scores.
        kappa: The kappa (``None``: undefined, one verdict throughout on both sides).
        kappa_ci: Its 95% interval (``None``: undefined).
        kappa_ci_method: ``wald``, or ``zero-disagreement bound`` (no pair disagreed).
        difference_ci: The 95% interval of the pass-rate difference.
        mcnemar_p: Two-sided exact McNemar p of the discordant pairs.
        flipped: Verdicts that changed (a score that moved, for scores).
        mean_shift: Mean of the candidate's score minus the judge's (``None`` for
            pass/fail verdicts), in ``shift_unit``.
        wilcoxon_p: Two-sided Wilcoxon signed-rank p of those differences.
        shift_unit: ``points`` of the claim's scale, or ``range``: shares of each
            scale's range (over claims with different scales).
    """

    table: PairedTable
    kind: Kind
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    kappa_ci_method: IntervalMethod | None
    difference_ci: tuple[float, float]
    mcnemar_p: float
    flipped: int
    mean_shift: float | None = None
    wilcoxon_p: float | None = None
    shift_unit: Literal["points", "range"] | None = None

    @property
    def n(self) -> int:
        return self.table.pairs

    @property
    def agreement(self) -> float | None:
        """Share of pairs that did not flip (``None`` with no pairs)."""
        return (self.n - self.flipped) / self.n if self.n else None

    def as_dict(self) -> dict[str, Any]:
        t = self.table
        return {
            "kind": self.kind,
            "n": t.pairs,
            "agreed": t.pairs - self.flipped,
            "agreement": _r(self.agreement),
            "kappa": _r(self.kappa),
            "kappa_ci": _pair(self.kappa_ci),
            "kappa_ci_method": self.kappa_ci_method,
            "pass_rate_before": _r(t.baseline_rate),
            "pass_rate_after": _r(t.candidate_rate),
            "difference": _r(t.difference),
            "difference_ci": _pair(self.difference_ci),
            "mcnemar_p": _r(self.mcnemar_p),
            "stricter": t.baseline_only,
            "laxer": t.candidate_only,
            "flipped": self.flipped,
            "mean_shift": _r(self.mean_shift),
            "shift_unit": self.shift_unit,
            "wilcoxon_p": _r(self.wilcoxon_p),
        }


@dataclass(frozen=True, slots=True)
class Scores:
    """The paired scores of a set of verdicts (the judge's, the candidate's).

    Attributes:
        pairs: One ``(judge, candidate)`` score per verdict, in the order of the pass/
            fail pairs; weighted kappa is over them.
        widest: The largest squared distance two scores may lie apart (the floor's
            worst disagreement): ``(max - min)**2`` of the scale, 1 on shares of it.
        shifts: The differences the mean shift and Wilcoxon are of (candidate minus
            judge): every pair's, or (mixed) only the scale verdicts'.
        unit: What the shifts are in.
    """

    pairs: Sequence[tuple[Fraction, Fraction]]
    widest: float
    shifts: Sequence[Fraction]
    unit: Literal["points", "range"]
    kind: Kind = "scale"


class _Verdict(Protocol):
    @property
    def old(self) -> bool: ...
    @property
    def new(self) -> bool: ...
    @property
    def scale(self) -> tuple[int, int, int] | None: ...
    @property
    def old_score(self) -> float | None: ...
    @property
    def new_score(self) -> float | None: ...


def measured(verdicts: Sequence[_Verdict]) -> Figures:
    """The figures of re-asked verdicts: Cohen's kappa when all are pass/fail; else
    weighted kappa of the scores, on the scale's points when all share one scale, on
    shares of each scale's range otherwise (a pass/fail verdict then scores 0 or 1,
    where quadratic weighted kappa is Cohen's), the shift of the scale verdicts alone."""
    pairs = [(v.old, v.new) for v in verdicts]
    scales = {v.scale[:2] for v in verdicts if v.scale is not None}
    if not scales:
        return figures_of(pairs)
    scaled = [v for v in verdicts if v.scale is not None]
    if len(scaled) == len(verdicts) and len(scales) == 1:
        ((low, high),) = scales
        points = [(_exact(v.old_score), _exact(v.new_score)) for v in verdicts]
        shifts = [b - a for a, b in points]
        return figures_of(pairs, Scores(points, float((high - low) ** 2), shifts, "points"))
    shares = [(_share(v, v.old, v.old_score), _share(v, v.new, v.new_score)) for v in verdicts]
    shifts = [b - a for (a, b), v in zip(shares, verdicts, strict=True) if v.scale is not None]
    kind: Kind = "scale" if len(scaled) == len(verdicts) else "mixed"
    return figures_of(pairs, Scores(shares, 1.0, shifts, "range", kind))


def _exact(score: float | None) -> Fraction:
    if score is None:
        raise ValueError("a verdict on a scale without its score")
    return exact_score(score)


def _share(verdict: _Verdict, passed: bool, score: float | None) -> Fraction:
    """A verdict's score as a share of its scale's range; 1 or 0 for pass/fail."""
    if verdict.scale is None:
        return Fraction(int(passed))
    low, high, _ = verdict.scale
    return (_exact(score) - low) / (high - low)


def figures_of(pairs: Iterable[tuple[bool, bool]], scores: Scores | None = None) -> Figures:
    """The figures of ``(judge passed, candidate passed)`` pairs (and their scores)."""
    # Cohen's table with the judge in the place of the human labels.
    confusion = confusion_of(pairs)
    table = PairedTable(
        both_pass=confusion.both_pass,
        baseline_only=confusion.human_pass_judge_fail,
        candidate_only=confusion.human_fail_judge_pass,
        both_fail=confusion.both_fail,
    )
    if scores is None:
        kappa, flipped = cohens_kappa(confusion), table.baseline_only + table.candidate_only
        interval = kappa_interval(confusion)
        ci, method = _bounded(kappa, interval, table.pairs, flipped, lambda: 1.0 - _pe(table))
        return _figures(table, "binary", kappa, ci, method, flipped)
    old = [float(a) for a, _ in scores.pairs]
    new = [float(b) for _, b in scores.pairs]
    kappa = weighted_kappa(old, new)
    flipped = sum(1 for a, b in scores.pairs if a != b)
    ci, method = _bounded(
        kappa,
        weighted_kappa_interval(old, new),
        len(old),
        flipped,
        lambda: _expected_disagreement(old, new) / scores.widest,
    )
    figures = _figures(table, scores.kind, kappa, ci, method, flipped)
    if not scores.shifts:
        return figures
    shift = wilcoxon_signed_rank(scores.shifts)
    return dataclasses.replace(
        figures,
        mean_shift=float(sum(scores.shifts) / len(scores.shifts)),
        wilcoxon_p=shift.p_value,
        shift_unit=scores.unit,
    )


def _figures(
    table: PairedTable,
    kind: Kind,
    kappa: float | None,
    ci: tuple[float, float] | None,
    method: IntervalMethod | None,
    flipped: int,
) -> Figures:
    return Figures(
        table=table,
        kind=kind,
        kappa=kappa,
        kappa_ci=ci,
        kappa_ci_method=method,
        difference_ci=newcombe_paired_interval(table),
        mcnemar_p=mcnemar_exact_p(table.baseline_only, table.candidate_only),
        flipped=flipped,
    )


def _bounded(
    kappa: float | None,
    interval: tuple[float, float] | None,
    n: int,
    flipped: int,
    chance: Callable[[], float],
) -> tuple[tuple[float, float] | None, IntervalMethod | None]:
    """Kappa's interval: the Wald one, or with no disagreement at all the floor of
    ``perfect_agreement_floor`` (``chance()``: the disagreement chance would give, in
    units of the widest one)."""
    if interval is not None:
        return interval, "wald"
    if kappa is None or flipped or n == 0:
        return None, None
    return (perfect_agreement_floor(n, chance()), 1.0), "zero-disagreement bound"


def _pe(table: PairedTable) -> float:
    n = table.pairs
    before, after = table.baseline_passed / n, table.candidate_passed / n
    return before * after + (1 - before) * (1 - after)


def _expected_disagreement(old: Sequence[float], new: Sequence[float]) -> float:
    """Mean squared difference over all pairings of the two sides' scores."""
    n = len(old)
    mean_old, mean_new = sum(old) / n, sum(new) / n
    spread_old = sum((a - mean_old) ** 2 for a in old) / n
    spread_new = sum((b - mean_new) ** 2 for b in new) / n
    return spread_old + spread_new + (mean_old - mean_new) ** 2


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _pair(values: tuple[float, float] | None) -> list[float] | None:
    return None if values is None else [round(values[0], 6), round(values[1], 6)]
