"""How sure a calibration is: kappa's interval, the labels a narrower one needs, weighted
kappa for scales, and how well the judge's fails find the people's fails.

Pure functions of the 2x2 table (``calibrate.Confusion``) or of paired scores; no I/O,
no scipy. A figure that is undefined for the data is ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from verifier.compare.calibrate import Confusion, cohens_kappa

__all__ = [
    "DEFAULT_KAPPA_MARGIN",
    "FailDetection",
    "fail_detection",
    "kappa_interval",
    "kappa_standard_error",
    "labels_for_kappa_margin",
    "perfect_agreement_floor",
    "weighted_kappa",
    "weighted_kappa_interval",
]

DEFAULT_KAPPA_MARGIN = 0.1
"""Half-width of kappa's 95% interval that ``labels_for_kappa_margin`` plans for by
default: one Landis & Koch band is 0.2 wide, so such an interval names the band."""


def _variance_terms(table: Confusion) -> tuple[float, float] | None:
    """``(A + B - C, 1 - p_e)`` of Fleiss, Cohen & Everitt's variance, or ``None``."""
    kappa = cohens_kappa(table)
    if kappa is None:
        return None
    n = table.n
    (p11, p12), (p21, p22) = ((c / n for c in row) for row in table.rows())
    human = (p11 + p12, p21 + p22)  # row marginals: human pass, human fail
    judge = (p11 + p21, p12 + p22)  # column marginals: judge pass, judge fail
    chance = human[0] * judge[0] + human[1] * judge[1]
    agree = (
        p11 * (1 - (human[0] + judge[0]) * (1 - kappa)) ** 2
        + p22 * (1 - (human[1] + judge[1]) * (1 - kappa)) ** 2
    )
    disagree = (1 - kappa) ** 2 * (
        p12 * (judge[0] + human[1]) ** 2 + p21 * (judge[1] + human[0]) ** 2
    )
    correction = (kappa - chance * (1 - kappa)) ** 2
    return max(0.0, agree + disagree - correction), 1 - chance


def kappa_standard_error(table: Confusion) -> float | None:
    """Large-sample standard error of Cohen's kappa (Fleiss, Cohen & Everitt 1969).

    Fleiss, J. L., Cohen, J. and Everitt, B. S. (1969), "Large sample standard errors
    of kappa and weighted kappa", Psychological Bulletin 72:323-327: with cell shares
    ``p_ij`` (human ``i``, judge ``j``), marginals ``p_i.`` and ``p_.j`` and chance
    agreement ``p_e``,

        var = (A + B - C) / (n (1 - p_e)**2)
        A = sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))**2
        B = (1 - kappa)**2 sum_{i != j} p_ij (p_.i + p_j.)**2
        C = (kappa - p_e (1 - kappa))**2

    Returns:
        The standard error, or ``None`` when kappa is undefined.
    """
    terms = _variance_terms(table)
    if terms is None:
        return None
    spread, free = terms
    return math.sqrt(spread) / (free * math.sqrt(table.n))


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def kappa_interval(table: Confusion, *, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wald interval of Cohen's kappa with the standard error above, clipped to [-1, 1].

    With no disagreement at all the standard error is 0 and so is the width: the
    large-sample interval cannot say how sure a perfect record on few labels is, so it
    is ``None`` then, as when kappa is undefined.
    """
    kappa = cohens_kappa(table)
    error = kappa_standard_error(table)
    if kappa is None or error is None or error == 0.0:
        return None
    half = _z(confidence) * error
    return max(-1.0, kappa - half), min(1.0, kappa + half)


def labels_for_kappa_margin(
    table: Confusion, margin: float = DEFAULT_KAPPA_MARGIN, *, confidence: float = 0.95
) -> int | None:
    """Labelled cases for kappa's interval to be ``kappa +- margin``, at the table's shares.

    The variance above is ``(A + B - C) / (n (1 - p_e)**2)`` with ``A``, ``B``, ``C`` and
    ``p_e`` fixed by the shares of the table, so the half-width ``z * sqrt(var)`` reaches
    ``margin`` at ``n = z**2 (A + B - C) / ((1 - p_e)**2 margin**2)``, rounded up (the
    planning approach of Flack, Afifi, Lachenbruch & Schouten 1988, "Sample size
    determinations for the two rater kappa statistic", Psychometrika 53:321-325). For
    orientation: at kappa 0.6 with each side passing half the cases, ``A + B - C =
    0.16`` and ``1 - p_e = 0.5``, so +-0.1 needs 246 labels and +-0.05 needs 984.

    Returns:
        The number of labelled cases, or ``None`` when kappa is undefined or nothing
        was disagreed on (the variance estimate is then 0).
    """
    if not 0.0 < margin <= 1.0:
        raise ValueError(f"the margin must be in (0, 1], not {margin}")
    terms = _variance_terms(table)
    if terms is None or terms[0] == 0.0:
        return None
    spread, free = terms
    needed = _z(confidence) ** 2 * spread / (free * free * margin * margin)
    # Round away float noise before the ceiling so 246.0000000001 is 246.
    return max(1, math.ceil(round(needed, 9)))


def weighted_kappa(human: Sequence[float], judge: Sequence[float]) -> float | None:
    """Cohen's weighted kappa of paired scores with quadratic weights.

    Cohen (1968), "Weighted kappa", Psychological Bulletin 70:213-220, with the
    disagreement weight of two scores the square of their distance (Fleiss & Cohen
    1973, who showed it equals the intraclass correlation for large samples):

        kappa_w = 1 - mean((h - j)**2) / mean over all h, j' of (h - j')**2

    the denominator being the disagreement expected if the two sides were paired at
    random. Quadratic weights count a miss by two points four times a miss by one, as
    a scale's distances suggest; the value does not depend on the scale's unit.

    Returns:
        Weighted kappa, or ``None`` with fewer than two pairs or when both sides gave
        one and the same score throughout.

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(human) != len(judge):
        raise ValueError(f"score lists differ in length ({len(human)} and {len(judge)})")
    n = len(human)
    if n < 2:
        return None
    mean_h, mean_j = sum(human) / n, sum(judge) / n
    spread_h = sum((h - mean_h) ** 2 for h in human) / n
    spread_j = sum((j - mean_j) ** 2 for j in judge) / n
    # Mean of (h_a - j_b)**2 over all n**2 pairings.
    expected = spread_h + spread_j + (mean_h - mean_j) ** 2
    if expected == 0.0:
        return None
    observed = sum((h - j) ** 2 for h, j in zip(human, judge, strict=True)) / n
    return 1.0 - observed / expected


def weighted_kappa_interval(
    human: Sequence[float], judge: Sequence[float], *, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Wald interval of quadratic weighted kappa (``weighted_kappa``), clipped to [-1, 1].

    The standard error is Fleiss, Cohen & Everitt's (1969) large-sample one for
    weighted kappa, the delta method over the table of paired scores: with ``D_o`` the
    mean squared difference of the pairs, ``D_e`` the one expected at random, and for a
    pair ``(h, j)`` ``g = (d(h, j) D_e - D_o (mean_j' d(h, j') + mean_h' d(h', j))) /
    D_e**2`` (``d`` the squared distance, the means over the observed scores),
    ``var = (mean(g**2) - mean(g)**2) / n``. On scores 0 and 1 quadratic weighted kappa
    is Cohen's kappa and this is ``kappa_interval``'s standard error.

    Returns:
        The interval, or ``None`` when weighted kappa is undefined or no pair disagrees
        (the standard error is then 0: see ``perfect_agreement_floor``).
    """
    kappa = weighted_kappa(human, judge)
    if kappa is None:
        return None
    n = len(human)
    mean_h, mean_j = sum(human) / n, sum(judge) / n
    spread_h = sum((h - mean_h) ** 2 for h in human) / n
    spread_j = sum((j - mean_j) ** 2 for j in judge) / n
    observed = sum((h - j) ** 2 for h, j in zip(human, judge, strict=True)) / n
    expected = spread_h + spread_j + (mean_h - mean_j) ** 2
    # mean_j' d(h, j') is (h - mean_j)**2 + spread_j; likewise for a judge score.
    gradients = [
        (
            (h - j) ** 2 * expected
            - observed * ((h - mean_j) ** 2 + spread_j + (j - mean_h) ** 2 + spread_h)
        )
        / (expected * expected)
        for h, j in zip(human, judge, strict=True)
    ]
    mean = sum(gradients) / n
    variance = max(0.0, sum(g * g for g in gradients) / n - mean * mean) / n
    if variance == 0.0:
        return None
    half = _z(confidence) * math.sqrt(variance)
    return max(-1.0, kappa - half), min(1.0, kappa + half)


def perfect_agreement_floor(
    n: int, expected: float, widest: float = 1.0, *, confidence: float = 0.95
) -> float:
    """The lower end of a kappa interval when ``n`` pairs agreed every one.

    The large-sample interval has width 0 then, as if a perfect record on five cases
    proved perfect agreement. Instead the share of pairs that disagree is bounded by
    its exact Clopper-Pearson upper bound with none observed, ``1 - (alpha/2)**(1/n)``
    (the upper end of the two-sided interval at the ``confidence`` level), each such
    pair is taken to disagree by ``widest`` (the largest squared distance its scores
    allow: 1 for pass/fail), and the result is mapped through kappa with the observed
    marginals, ``1 - bound * widest / expected``, where ``expected`` is the disagreement
    chance would give (``1 - p_e`` for Cohen's kappa, ``D_e`` for weighted kappa).
    For pass/fail verdicts this is ``(p_o_low - p_e) / (1 - p_e)`` with ``p_o_low =
    (alpha/2)**(1/n)``. It is conservative: every disagreement it allows for is the
    widest one.

    Raises:
        ValueError: ``n`` or ``expected`` is not positive.
    """
    if n < 1 or expected <= 0.0:
        raise ValueError(f"a floor needs pairs and a chance disagreement, not {n}, {expected}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence}")
    disagreeing = 1.0 - math.pow((1.0 - confidence) / 2.0, 1.0 / n)
    return max(-1.0, 1.0 - disagreeing * widest / expected)


@dataclass(frozen=True, slots=True)
class FailDetection:
    """The judge's fails as a detector of the people's fails.

    Attributes:
        precision: Of the cases the judge failed, the share the people failed too.
        recall: Of the cases the people failed, the share the judge failed too.
        f1: Their harmonic mean, ``2 TP / (2 TP + FP + FN)``.
    """

    precision: float | None
    recall: float | None
    f1: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}


def fail_detection(table: Confusion) -> FailDetection:
    """Precision, recall and F1 of the judge's fails against the people's fails.

    "Fail" is the positive class, since a judge is there to catch failures: a true
    positive is a case both failed, a false positive one only the judge failed, a false
    negative one only the people failed. Each figure is ``None`` when its denominator
    is 0.
    """
    caught = table.both_fail
    judged = caught + table.human_pass_judge_fail
    actual = caught + table.human_fail_judge_pass
    precision = caught / judged if judged else None
    recall = caught / actual if actual else None
    f1 = 2 * caught / (judged + actual) if judged + actual else None
    return FailDetection(precision, recall, f1)
