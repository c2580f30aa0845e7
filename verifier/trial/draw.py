"""The verdicts a trial re-asks: a sample stratified by claim and stored verdict.

Strata are (claim, pass) and (claim, fail), in claim order then pass before fail; each
gets its share of the sample in proportion to its size (largest remainders first,
ties to the earlier stratum), and its verdicts are drawn from it in store order with
one generator seeded once: the same store, size and seed draw the same verdicts. A
sample at least as large as the verdicts stored takes them all.
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
    """How many of each stratum a sample of ``n`` takes: proportional, largest
    remainders first (Hamilton's method); all of them when ``n`` covers them."""
    total = sum(sizes)
    if n >= total:
        return list(sizes)
    quotas = [n * size / total for size in sizes]
    taken = [int(q) for q in quotas]
    order = sorted(range(len(sizes)), key=lambda i: (-(quotas[i] - taken[i]), i))
    for i in order[: n - sum(taken)]:
        taken[i] += 1
    return taken


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
