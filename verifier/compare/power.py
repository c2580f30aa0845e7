"""The exact power of McNemar's exact test, and the paired cases it needs.

``verifier compare`` decides with the exact (conditional) McNemar test, so its
"cases needed" figure is computed for that test, not from a large-sample formula
(Connor 1987), which promises 80% power at sizes where the exact test has less (78%
at its 23 cases for discordant rates 0.05 and 0.45) or cannot reject at all (4 cases
when every pair regresses).

With ``n`` paired cases and discordant probabilities ``p10`` (passed in the baseline
only) and ``p01`` (in the candidate only), the number of discordant pairs is
``D ~ Binomial(n, p10 + p01)`` and, given ``D = d``, the regressions among them are
``B ~ Binomial(d, p10 / (p10 + p01))``. The two-sided exact test at ``alpha`` rejects
when ``min(B, d - B) <= k(d)``, the largest ``k`` with ``2 * P(Binomial(d, 1/2) <= k)
<= alpha``; there is no such ``k`` (the test can never reject) for ``d`` below
``min_discordant(alpha)``, six at alpha 0.05. The power is

    sum over d of P(D = d) * [P(B <= k(d)) + P(B >= d - k(d))]

(the unconditional power of the conditional test, as in Miettinen 1968, "The matched
pairs design in the case of all-or-none responses", Biometrics 24:339-352, and
Fagerland, Lydersen & Laake 2017, *Statistical Analysis of Contingency Tables*, 8.9).

The power of an exact test is not monotone in ``n`` (it saw-tooths as the attainable
p-values jump), so the sample size is the smallest ``n`` whose power reaches the
target, found by trying every ``n`` from the first that can reject; a few larger ``n``
may fall just short of it again.

numpy and scipy are imported by the functions that compute, not with the module: they
take most of a second to import, which every ``verifier run`` (whose gate modules
import this one) would pay without ever estimating a power. They are the ``stats``
extra: without it the functions that compute raise ``MissingExtraError``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from verifier._internal.extras import needs_extra

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "MAX_CASES",
    "CasesNeeded",
    "mcnemar_cases_needed",
    "mcnemar_power",
    "min_discordant",
    "planned_cases",
]

Sides = Literal[1, 2]

MAX_CASES: Final = 10_000
"""Largest sample size searched; a difference needing more is reported as beyond it."""

_FEATURE = "the power of the exact McNemar test (power, cases needed)"


def min_discordant(alpha: float) -> int:
    """Fewest discordant pairs with which the two-sided exact test can reach ``alpha``.

    The most lopsided split of ``d`` pairs has p-value ``2 / 2**d``, so this is the
    smallest ``d`` with ``2 / 2**d <= alpha`` (6 at 0.05, 8 at 0.01).
    """
    _check_alpha(alpha)
    d = 1
    while 2.0 * 0.5**d > alpha:
        d += 1
    return d


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, not {alpha}")


def _check_rates(baseline_only_rate: float, candidate_only_rate: float) -> None:
    if not (0.0 <= baseline_only_rate <= 1.0 and 0.0 <= candidate_only_rate <= 1.0):
        raise ValueError("discordant rates must be in [0, 1]")
    if baseline_only_rate + candidate_only_rate > 1.0 + 1e-12:
        raise ValueError("discordant rates cannot add up to more than 1")


def _rejection(limit: int, share: float, alpha: float, sides: Sides = 2) -> np.ndarray:
    """``P(the exact test rejects | d discordant pairs)`` for every ``d`` up to ``limit``.

    ``share`` is the probability that a discordant pair is a regression. One-sided
    (``sides=1``), the test is of the more likely direction (regressions when
    ``share > 1/2``) at ``alpha``: it rejects when the pairs against it are at most
    ``k(d)``, the largest ``k`` with ``P(Binomial(d, 1/2) <= k) <= alpha``, as a gate's
    one-sided test does.
    """
    with needs_extra("stats", _FEATURE):  # deferred: see the module's docstring
        import numpy as np
        from scipy.stats import binom

    d = np.arange(limit + 1)
    level = alpha / sides
    # Smallest k with P(Bin(d, 1/2) <= k) >= level; the critical k(d) is one below it
    # unless that probability is exactly the level.
    k = binom.ppf(level, d, 0.5)
    k = np.where(binom.cdf(k, d, 0.5) > level, k - 1, k)
    lower, upper = binom.cdf(k, d, share), binom.sf(d - k - 1, d, share)
    # One-sided, only the tail of the more likely direction rejects.
    tested = upper if share > 0.5 else lower
    power = tested if sides == 1 else lower + upper
    return np.where(k >= 0, power, 0.0)


def _powers(
    baseline_only_rate: float,
    candidate_only_rate: float,
    alpha: float,
    limit: int,
    sides: Sides = 2,
) -> Iterator[float]:
    """Exact power of the exact McNemar test at ``n`` = 0, 1, ... ``limit``."""
    discordant = baseline_only_rate + candidate_only_rate
    if discordant <= 0.0:
        yield from (0.0 for _ in range(limit + 1))
        return
    reject = _rejection(limit, min(1.0, baseline_only_rate / discordant), alpha, sides)
    with needs_extra("stats", _FEATURE):  # deferred: see the module's docstring
        import numpy as np

    # pmf[d] = P(D = d) at the current n, updated one case at a time:
    # P_{n+1}(d) = (1 - psi) P_n(d) + psi P_n(d - 1).
    pmf = np.zeros(limit + 1)
    pmf[0] = 1.0
    stay = max(0.0, 1.0 - discordant)
    yield 0.0
    for n in range(1, limit + 1):
        pmf[1 : n + 1] = stay * pmf[1 : n + 1] + discordant * pmf[0:n]
        pmf[0] *= stay
        yield float(pmf[: n + 1] @ reject[: n + 1])


def mcnemar_power(
    pairs: int, baseline_only_rate: float, candidate_only_rate: float, *, alpha: float = 0.05
) -> float:
    """Exact power of the two-sided exact McNemar test with ``pairs`` paired cases.

    Args:
        pairs: Paired cases.
        baseline_only_rate: Probability that a pair passes in the baseline only.
        candidate_only_rate: Probability that a pair passes in the candidate only.
        alpha: Two-sided significance level.

    Raises:
        MissingExtraError: The ``stats`` extra is not installed.
    """
    _check_rates(baseline_only_rate, candidate_only_rate)
    _check_alpha(alpha)
    if pairs < 0:
        raise ValueError(f"pairs cannot be negative, not {pairs}")
    discordant = baseline_only_rate + candidate_only_rate
    if discordant <= 0.0:
        return 0.0
    with needs_extra("stats", _FEATURE):  # deferred: see the module's docstring
        import numpy as np
        from scipy.stats import binom

    reject = _rejection(pairs, min(1.0, baseline_only_rate / discordant), alpha)
    law = binom.pmf(np.arange(pairs + 1), pairs, min(1.0, discordant))
    return float(law @ reject)


@dataclass(frozen=True, slots=True)
class CasesNeeded:
    """The paired cases the exact McNemar test needs to reach a power.

    Attributes:
        cases: Smallest number of paired cases whose exact power reaches the target;
            ``None`` when no difference was observed or none up to ``searched`` does.
        power: The exact power at ``cases`` (``None`` with no ``cases``).
        searched: The largest number of cases tried (``MAX_CASES`` unless fewer were
            needed; 0 when there was no difference).
    """

    cases: int | None
    power: float | None
    searched: int

    @property
    def beyond(self) -> bool:
        """True when a difference was observed but no size up to ``searched`` has the power."""
        return self.cases is None and self.searched > 0


def mcnemar_cases_needed(
    baseline_only_rate: float,
    candidate_only_rate: float,
    *,
    alpha: float = 0.05,
    power: float = 0.80,
    limit: int = MAX_CASES,
    sides: Sides = 2,
) -> CasesNeeded:
    """Smallest number of paired cases at which the exact McNemar test has ``power``.

    Fed with the observed discordant rates, it answers "how many paired cases would
    show a difference this large with this power?".

    Args:
        baseline_only_rate: Probability that a pair passes in the baseline only.
        candidate_only_rate: Probability that a pair passes in the candidate only.
        alpha: Significance level of the test.
        power: Target power.
        limit: Largest number of cases to try.
        sides: 2 for the two-sided test ``verifier compare`` makes; 1 for the
            one-sided test of the more likely direction that a gate makes.

    Raises:
        MissingExtraError: A difference was observed and the ``stats`` extra is not
            installed.
    """
    _check_rates(baseline_only_rate, candidate_only_rate)
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be strictly between 0 and 1, not {power}")
    _check_alpha(alpha)
    if math.isclose(baseline_only_rate, candidate_only_rate, abs_tol=1e-15):
        return CasesNeeded(None, None, 0)
    curve = _powers(baseline_only_rate, candidate_only_rate, alpha, limit, sides)
    for n, reached in enumerate(curve):
        # 1e-12 keeps a power equal to the target (a whole binomial tail, say) from
        # being missed by its last bit.
        if reached >= power - 1e-12:
            return CasesNeeded(n, reached, n)
    return CasesNeeded(None, None, limit)


def planned_cases(
    effect: float,
    *,
    alpha: float,
    power: float,
    discordant: float | None = None,
    limit: int = MAX_CASES,
) -> CasesNeeded:
    """The paired cases a gate's one-sided exact McNemar test needs, planned before the
    runs from the effect the hypothesis expects.

    A pass-rate difference of ``effect`` is the difference of the two discordant
    rates; the test's power also depends on their sum, the share of cases whose
    result changes either way (``discordant``). Given none, the least that the
    effect allows is assumed (every change goes the expected way), which needs the
    fewest cases: the result is then a floor, below which the power cannot be
    reached whatever the discordance (more discordance at the same effect makes the
    split of the changed cases closer to even and needs more cases).

    Args:
        effect: The expected difference in pass rate, in (0, 1].
        alpha: The gate's one-sided significance level.
        power: Target power, in (0, 1).
        discordant: Expected share of cases whose result changes, in [effect, 1].
        limit: Largest number of cases to try.

    Raises:
        ValueError: An argument is out of its range.
        MissingExtraError: The ``stats`` extra is not installed.
    """
    if not 0.0 < effect <= 1.0:
        raise ValueError(f"the effect must be above 0 and at most 1, not {effect}")
    share = effect if discordant is None else discordant
    if not effect - 1e-12 <= share <= 1.0:
        raise ValueError(
            f"the discordant share must be at least the effect ({effect:g}) and at most 1, "
            f"not {share:g}"
        )
    towards, against = (share + effect) / 2, max(0.0, (share - effect) / 2)
    return mcnemar_cases_needed(towards, against, alpha=alpha, power=power, limit=limit, sides=1)
