"""Kappa's interval, labels needed, weighted kappa and fail detection, by hand.

The running example is the README's calibration: 24 labelled cases, human pass and
judge pass 11, human pass and judge fail 2, human fail and judge pass 1, both fail 10.
Cohen's kappa is 0.75 (p_o = 21/24, p_e = 13/24 * 1/2 + 11/24 * 1/2 = 1/2).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from verifier.compare.agreement import (
    fail_detection,
    kappa_interval,
    kappa_standard_error,
    labels_for_kappa_margin,
    weighted_kappa,
)
from verifier.compare.calibrate import Confusion, confusion_of

TABLE = Confusion(both_pass=11, human_pass_judge_fail=2, human_fail_judge_pass=1, both_fail=10)
Z95 = 1.959963984540054

# Fleiss, Cohen & Everitt (1969) by hand, kappa = 3/4, p_e = 1/2; marginals: human
# pass 13/24, human fail 11/24, judge pass 12/24, judge fail 12/24.
A = F(11, 24) * (1 - F(25, 24) * F(1, 4)) ** 2 + F(10, 24) * (1 - F(23, 24) * F(1, 4)) ** 2
B = F(1, 4) ** 2 * (F(2, 24) * F(23, 24) ** 2 + F(1, 24) * F(25, 24) ** 2)
C = (F(3, 4) - F(1, 2) * F(1, 4)) ** 2
SPREAD = A + B - C  # = 0.108615... ; A = 0.491631, B = 0.007609, C = 0.390625


def test_kappa_standard_error_is_fleiss_cohen_everitt() -> None:
    # sqrt(A + B - C) / ((1 - p_e) sqrt(n)) = 0.329569 / (0.5 * 4.898979) = 0.134546.
    expected = math.sqrt(SPREAD) / (0.5 * math.sqrt(24))
    assert kappa_standard_error(TABLE) == pytest.approx(expected, rel=1e-12)
    assert kappa_standard_error(TABLE) == pytest.approx(0.134546, abs=1e-6)


def test_kappa_interval_is_clipped_to_one() -> None:
    # 0.75 -+ 1.959964 * 0.134546 = 0.486295 .. 1.013705, clipped to 1.
    interval = kappa_interval(TABLE)
    assert interval is not None
    assert interval[0] == pytest.approx(0.75 - Z95 * math.sqrt(SPREAD) / (0.5 * math.sqrt(24)))
    assert interval[0] == pytest.approx(0.486295, abs=1e-6)
    assert interval[1] == 1.0


def test_labels_for_a_margin_at_the_observed_shares() -> None:
    # n = z**2 (A + B - C) / ((1 - p_e)**2 m**2): m = 0.1: 3.841459 * 0.108616 / 0.0025
    # = 166.9, so 167; m = 0.05: 667.6, so 668.
    assert labels_for_kappa_margin(TABLE, 0.1) == 167
    assert labels_for_kappa_margin(TABLE, 0.05) == 668


def test_labels_at_kappa_six_tenths_with_balanced_verdicts() -> None:
    # Shares 0.4, 0.1, 0.1, 0.4: kappa = (0.8 - 0.5) / 0.5 = 0.6. Hand: A = 2 * 0.4 *
    # (1 - 1 * 0.4)**2 = 0.288, B = 0.16 * 2 * 0.1 * 1**2 = 0.032, C = (0.6 - 0.2)**2 =
    # 0.16, A + B - C = 0.16; n = 3.841459 * 0.16 / (0.25 m**2): m = 0.1 gives 245.85,
    # so 246; m = 0.05 gives 983.4, so 984.
    balanced = Confusion(4, 1, 1, 4)
    assert kappa_standard_error(balanced) == pytest.approx(0.8 / math.sqrt(10))
    assert labels_for_kappa_margin(balanced, 0.1) == 246
    assert labels_for_kappa_margin(balanced, 0.05) == 984


def test_no_interval_or_plan_without_a_disagreement_or_a_kappa() -> None:
    perfect = Confusion(5, 0, 0, 5)
    assert kappa_standard_error(perfect) == 0.0
    assert kappa_interval(perfect) is None and labels_for_kappa_margin(perfect) is None
    one_verdict = Confusion(both_pass=6)
    assert kappa_standard_error(one_verdict) is None and kappa_interval(one_verdict) is None


def test_a_margin_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match="margin"):
        labels_for_kappa_margin(TABLE, 0.0)


def test_weighted_kappa_with_quadratic_weights() -> None:
    # Human 1, 2, 3, 4 against judge 1, 2, 4, 4. Observed mean squared distance:
    # (0 + 0 + 1 + 0) / 4 = 1/4. Expected over all 16 pairings: human 1 against the
    # judge's 1, 2, 4, 4 gives 0 + 1 + 9 + 9 = 19; human 2: 9; human 3: 7; human 4: 13;
    # 48 / 16 = 3. kappa_w = 1 - (1/4) / 3 = 11/12.
    assert weighted_kappa([1, 2, 3, 4], [1, 2, 4, 4]) == pytest.approx(11 / 12, abs=1e-15)


def test_weighted_kappa_does_not_depend_on_the_scale_unit() -> None:
    assert weighted_kappa([10, 20, 30, 40], [10, 20, 40, 40]) == pytest.approx(11 / 12)


def test_weighted_kappa_of_perfect_and_of_reversed_scores() -> None:
    assert weighted_kappa([1, 3, 5], [1, 3, 5]) == 1.0
    # Hand: observed (16 + 0 + 16) / 3 = 32/3; expected: var 8/3 each, equal means:
    # 16/3; kappa_w = 1 - 2 = -1.
    assert weighted_kappa([1, 3, 5], [5, 3, 1]) == pytest.approx(-1.0)


def test_weighted_kappa_undefined_cases() -> None:
    assert weighted_kappa([3], [4]) is None
    assert weighted_kappa([2, 2], [2, 2]) is None
    with pytest.raises(ValueError, match="length"):
        weighted_kappa([1, 2], [1])


def test_fail_detection_counts_fail_as_the_positive_class() -> None:
    # Both fail 10 (true positives), only the judge failed 2 (false positives), only
    # the people failed 1 (false negative): precision 10/12, recall 10/11, F1 20/23.
    found = fail_detection(TABLE)
    assert found.precision == pytest.approx(10 / 12)
    assert found.recall == pytest.approx(10 / 11)
    assert found.f1 == pytest.approx(20 / 23)
    assert found.as_dict() == {"precision": 10 / 12, "recall": 10 / 11, "f1": 20 / 23}


def test_fail_detection_without_fails() -> None:
    found = fail_detection(Confusion(both_pass=4))
    assert (found.precision, found.recall, found.f1) == (None, None, None)
    # The judge failed two cases the people passed: precision 0, recall undefined.
    found = fail_detection(Confusion(both_pass=4, human_pass_judge_fail=2))
    assert (found.precision, found.recall, found.f1) == (0.0, None, 0.0)


def test_weighted_kappas_interval_on_pass_fail_is_cohens() -> None:
    from verifier.compare.agreement import weighted_kappa_interval

    # On scores 0 and 1 quadratic weighted kappa is Cohen's kappa, and its delta-method
    # standard error is Fleiss, Cohen & Everitt's for kappa.
    pairs = [(1, 1)] * 10 + [(1, 0)] * 4 + [(0, 1)] * 2 + [(0, 0)] * 8
    table = confusion_of([(bool(h), bool(j)) for h, j in pairs])
    weighted = weighted_kappa_interval([h for h, _ in pairs], [j for _, j in pairs])
    assert weighted == pytest.approx(kappa_interval(table))
    assert weighted_kappa_interval([1, 2, 3], [1, 2, 3]) is None  # no disagreement
    assert weighted_kappa_interval([2, 2], [2, 2]) is None  # undefined


def test_the_perfect_agreement_floor_is_clopper_pearsons_bound_through_kappa() -> None:
    from verifier.compare.agreement import perfect_agreement_floor

    # 10 of 10 agree with p_e 0.5: p_o >= 0.025**(1/10), kappa >= (p_o - 0.5) / 0.5.
    assert perfect_agreement_floor(10, 0.5) == pytest.approx((0.025**0.1 - 0.5) / 0.5)
    # A disagreement on a 1-5 scale may be 16 squared points wide: far lower.
    assert perfect_agreement_floor(10, 2.0, 16.0) == -1.0
    assert perfect_agreement_floor(1000, 0.5) > perfect_agreement_floor(100, 0.5)
    with pytest.raises(ValueError, match="a floor needs pairs"):
        perfect_agreement_floor(0, 0.5)
