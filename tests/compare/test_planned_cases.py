"""The cases a gate plans before its runs: the one-sided exact McNemar test's power.

Checked against a direct sum written here from the definition: with ``n`` pairs, the
discordant count ``D ~ Binomial(n, towards + against)``; given ``D = d`` the pairs the
expected way are ``Binomial(d, towards / (towards + against))``, and the gate's test
rejects when their one-sided exact p-value ``P(Binomial(d, 1/2) >= b)`` is at most
alpha (``verifier.compare.gate``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from verifier.compare.power import planned_cases


def one_sided_power(n: int, towards: float, against: float, alpha: float) -> float:
    discordant = towards + against
    share = towards / discordant
    total = 0.0
    for d in range(n + 1):
        law_d = math.comb(n, d) * discordant**d * (1 - discordant) ** (n - d)
        for b in range(d + 1):
            p = Fraction(sum(math.comb(d, k) for k in range(b, d + 1)), 2**d)
            if p <= alpha:
                total += law_d * math.comb(d, b) * share**b * (1 - share) ** (d - b)
    return total


@pytest.mark.parametrize(
    ("effect", "discordant", "alpha", "power"),
    [(0.1, None, 0.05, 0.8), (0.2, 0.3, 0.05, 0.8), (0.3, 0.5, 0.1, 0.9)],
)
def test_the_cases_needed_are_the_first_size_whose_exact_power_reaches_the_target(
    effect: float, discordant: float | None, alpha: float, power: float
) -> None:
    needed = planned_cases(effect, alpha=alpha, power=power, discordant=discordant)
    assert needed.cases is not None and needed.power is not None
    share = effect if discordant is None else discordant
    towards, against = (share + effect) / 2, (share - effect) / 2
    reached = one_sided_power(needed.cases, towards, against, alpha)
    assert reached == pytest.approx(needed.power, abs=1e-9)
    assert reached >= power
    assert one_sided_power(needed.cases - 1, towards, against, alpha) < power


def test_with_no_discordance_stated_every_change_goes_the_expected_way() -> None:
    # One-sided at 0.05 the test needs 5 pairs all one way (1/32 <= 0.05 < 1/16), so
    # the power is P(Binomial(n, 0.1) >= 5): first above 0.8 at n = 66.
    needed = planned_cases(0.1, alpha=0.05, power=0.8)
    assert needed.cases == 66
    at_least_five = 1 - sum(math.comb(66, k) * 0.1**k * 0.9 ** (66 - k) for k in range(5))
    assert needed.power == pytest.approx(at_least_five, abs=1e-12)
    # More discordance at the same effect needs more cases: 66 is a floor.
    for discordant in (0.15, 0.3, 0.6, 1.0):
        more = planned_cases(0.1, alpha=0.05, power=0.8, discordant=discordant).cases
        assert more is not None and more > 66


def test_a_plan_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="at least the effect"):
        planned_cases(0.2, alpha=0.05, power=0.8, discordant=0.1)
    with pytest.raises(ValueError, match="the effect must be above 0"):
        planned_cases(0.0, alpha=0.05, power=0.8)
    beyond = planned_cases(0.01, alpha=0.05, power=0.99, discordant=1.0, limit=500)
    assert (beyond.cases, beyond.beyond) == (None, True)
