"""The verdicts a trial re-asks: a sample stratified by claim and stored verdict.

Strata are (claim, pass) and (claim, fail), in claim order then pass before fail; each
gets one verdict (when the sample has room for one of each), then its share of the
rest in proportion to its size (largest remainders first, ties to the earlier
stratum), so a rare verdict is never left out by rounding; its verdicts are drawn from
it in store order with one generator seeded once: the same store, size and seed draw
the same verdicts. A sample at least as large as the verdicts stored takes them all.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["allocate", "stratified"]


class _Verdict(Protocol):
    @property
    def claim_id(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def seq(self) -> int: ...


V = TypeVar("V", bound=_Verdict)


def allocate(sizes: Sequence[int], n: int) -> list[int]:
    """How many of each stratum a sample of ``n`` takes: all of them when ``n`` covers
    them; else one of each (while ``n`` allows) and the rest in proportion to what is
    left of each, largest remainders first (Hamilton's method), ties to the earlier."""
    total = sum(sizes)
    if n >= total:
        return list(sizes)
    taken = [0] * len(sizes)
    if n >= sum(1 for size in sizes if size):
        taken = [min(1, size) for size in sizes]
    left = [size - t for size, t in zip(sizes, taken, strict=True)]
    rest, pool = n - sum(taken), sum(left)
    quotas = [rest * size / pool for size in left]
    whole = [int(q) for q in quotas]
    order = sorted(range(len(sizes)), key=lambda i: (-(quotas[i] - whole[i]), i))
    for i in order[: rest - sum(whole)]:
        whole[i] += 1
    return [t + w for t, w in zip(taken, whole, strict=True)]


def stratified(verdicts: Sequence[V], n: int, seed: int) -> list[V]:
    """``n`` of ``verdicts`` drawn by stratum (see above), returned in store order."""
    strata: dict[tuple[str, int], list[V]] = {}
    for verdict in sorted(verdicts, key=lambda v: v.seq):
        key = (verdict.claim_id, 0 if verdict.status == "pass" else 1)
        strata.setdefault(key, []).append(verdict)
    keys = sorted(strata)
    rng = random.Random(seed)
    drawn: list[V] = []
    for key, count in zip(keys, allocate([len(strata[k]) for k in keys], n), strict=True):
        drawn += rng.sample(strata[key], count)
    return sorted(drawn, key=lambda v: v.seq)
