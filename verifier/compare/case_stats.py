"""How far people's labels of whole cases follow the cases' scores: pure functions.

Plain-Python arithmetic (``math.fsum``, the standard library's normal quantile), so a
core install computes them without the ``stats`` extra:

- the point-biserial correlation of thumbs (up 1, down 0) with the case scores, which
  is Pearson's correlation of the two, with a Fisher z interval (standard error
  ``1 / sqrt(n - 3)``);
- the AUC: the probability that a thumbs-up case scores above a thumbs-down case, a tie
  counting one half (the Mann-Whitney statistic over ``m * n``), with DeLong's
  variance (DeLong, DeLong & Clarke-Pearson 1988, computed from mid-ranks as Sun & Xu
  2014 do) and a normal interval clipped to [0, 1];
- Spearman's rank correlation of score labels with the case scores (Pearson's on
  mid-ranks), with a Fisher z interval whose standard error is Bonett & Wright's
  (2000) ``sqrt((1 + r^2 / 2) / (n - 3))``.

A figure undefined for the data (a constant side, too few cases) is ``None``, and so is
an interval that cannot be formed (``|r| = 1``, fewer than four cases, a zero
variance): never a made-up number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

__all__ = ["Estimate", "auc", "midranks", "pearson_r", "point_biserial", "spearman_rank"]

_Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure with its 95% interval (``None`` when none can be formed) and sample."""

    value: float
    ci95: tuple[float, float] | None
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "n": self.n,
        }


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def pearson_r(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation of paired values; ``None`` with fewer than three pairs or a
    constant side.

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(x) != len(y):
        raise ValueError(f"sequences differ in length ({len(x)} and {len(y)})")
    if len(x) < 3:
        return None
    mx, my = _mean(x), _mean(y)
    dx = [v - mx for v in x]
    dy = [v - my for v in y]
    sxx = math.fsum(d * d for d in dx)
    syy = math.fsum(d * d for d in dy)
    if sxx == 0 or syy == 0:
        return None
    r = math.fsum(a * b for a, b in zip(dx, dy, strict=True)) / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


def _fisher(r: float, n: int, se_factor: float = 1.0) -> tuple[float, float] | None:
    """The 95% interval of a correlation from Fisher's z (``None``: it has none)."""
    if n < 4 or abs(r) >= 1:
        return None
    z = math.atanh(r)
    half = _Z95 * se_factor / math.sqrt(n - 3)
    return (math.tanh(z - half), math.tanh(z + half))


def point_biserial(up: Sequence[bool], scores: Sequence[float]) -> Estimate | None:
    """The point-biserial correlation of thumbs (up 1, down 0) with scores, with a
    Fisher z interval; ``None`` when every thumbs or every score is the same."""
    r = pearson_r([1.0 if u else 0.0 for u in up], scores)
    if r is None:
        return None
    return Estimate(r, _fisher(r, len(scores)), len(scores))


def midranks(values: Sequence[float]) -> list[float]:
    """The rank of each value (1 is the smallest), tied values sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman_rank(x: Sequence[float], y: Sequence[float]) -> Estimate | None:
    """Spearman's rank correlation (mid-ranks for ties) with a Fisher z interval using
    Bonett & Wright's standard error; ``None`` when a side is constant or has fewer
    than three values."""
    if len(x) != len(y):
        raise ValueError(f"sequences differ in length ({len(x)} and {len(y)})")
    r = pearson_r(midranks(x), midranks(y))
    if r is None:
        return None
    return Estimate(r, _fisher(r, len(x), math.sqrt(1 + r * r / 2)), len(x))


def auc(up_scores: Sequence[float], down_scores: Sequence[float]) -> Estimate | None:
    """The probability that a thumbs-up case scores above a thumbs-down one (ties one
    half), with DeLong's 95% interval; ``None`` when either side has no case.

    The interval needs two cases on each side and a variance above zero (a perfect
    separation has none: its interval is ``None``).
    """
    m, n = len(up_scores), len(down_scores)
    if not m or not n:
        return None
    combined = midranks([*up_scores, *down_scores])
    within_up = midranks(up_scores)
    within_down = midranks(down_scores)
    # Each up case's share of down cases below it, each down case's share of up cases
    # above it (ties one half): DeLong's structural components.
    v10 = [(combined[i] - within_up[i]) / n for i in range(m)]
    v01 = [1 - (combined[m + j] - within_down[j]) / m for j in range(n)]
    value = _mean(v10)
    if m < 2 or n < 2:
        return Estimate(value, None, m + n)
    variance = _variance(v10) / m + _variance(v01) / n
    if variance <= 0:
        return Estimate(value, None, m + n)
    half = _Z95 * math.sqrt(variance)
    return Estimate(value, (max(0.0, value - half), min(1.0, value + half)), m + n)


def _variance(values: Sequence[float]) -> float:
    """The sample variance (``n - 1`` in the denominator)."""
    mean = _mean(values)
    return math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
