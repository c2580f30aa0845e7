"""The typed options of :func:`verifier.run_contract` beyond the contract and cases:
each one a small frozen value, checked when made.

``verifier run`` translates its options into these: ``--sample F --seed S`` is
``Sample(F, S)``, ``--resume RUN`` is ``Resume(RUN)``, ``--shard K/N --run-id RUN`` is
``ShardPart(K, N, RUN)``, ``--variant A=... --variant B=...`` is ``Variants(...)`` and
``--batch`` is ``Batch()``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from verifier.engine.ports import ReportSink
from verifier.errors import VerifierError
from verifier.gaps.shards import MAX_SHARDS, Shard
from verifier.gaps.store import GapStore
from verifier.run.assembly import Sut

__all__ = [
    "Batch",
    "Resume",
    "RunOptionError",
    "Sample",
    "ShardPart",
    "Sinks",
    "Variants",
    "sinks_over",
]

Sinks = Sequence[ReportSink] | Callable[[GapStore], Sequence[ReportSink]]
"""Report writers, or a function making them over the run's open store (a writer
that reads the store, such as a comparison with a stored run)."""


def sinks_over(sinks: Sinks, store: GapStore) -> list[ReportSink]:
    """The report writers ``sinks`` gives over the open ``store``."""
    return list(sinks(store) if callable(sinks) else sinks)


class RunOptionError(VerifierError):
    """Options of a run that are unusable, alone or together; nothing was written."""


@dataclass(frozen=True)
class Sample:
    """Check a reproducible random sample of about ``fraction`` of the cases.

    Which cases depends only on ``seed`` and the case ids (see
    :func:`verifier.cases.sample_cases`): the same seed picks the same cases again.

    Attributes:
        fraction: The share of cases kept, in (0, 1].
        seed: The sample's seed; ``None``: a random one, recorded with the run and
            given back in :attr:`RunResult.sample <verifier.RunResult.sample>`.
    """

    fraction: float
    seed: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.fraction <= 1:
            raise RunOptionError(f"--sample must be in (0, 1], not {self.fraction}")
        if self.seed is not None and not 0 <= self.seed < 2**63:
            raise RunOptionError(f"--seed must be in [0, 2**63), not {self.seed}")

    def seeded(self) -> Sample:
        """This sample with its seed chosen (a random one when it has none)."""
        return self if self.seed is not None else replace(self, seed=secrets.randbelow(2**31))


@dataclass(frozen=True)
class Resume:
    """Finish an interrupted run: its stored cases are kept, only the rest are checked.

    Attributes:
        run_id: The run: its id, ``last`` or ``last~N`` (counted among the runs of
            the contract being run).
    """

    run_id: str = "last"


@dataclass(frozen=True)
class ShardPart:
    """Check only part ``index`` of ``count`` of the cases (by case id hash) into the
    run ``run_id``, which ``count`` processes write together (a PostgreSQL store).

    The last shard to finish ends the run; :func:`verifier.finish_sharded_run` ends it
    once every shard has finished, if none did.

    Attributes:
        index: This part, from 1.
        count: How many parts the cases are split into (at most 1024).
        run_id: The run every shard writes into (the same for all); ``None`` only with
            ``resume``, which names it.
    """

    index: int
    count: int
    run_id: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count <= MAX_SHARDS:
            raise RunOptionError(
                f"--shard '{self.index}/{self.count}': K/N needs 1 <= K <= N <= {MAX_SHARDS}"
            )

    @property
    def shard(self) -> Shard:
        """The part as the store knows it."""
        return Shard(self.index, self.count)


@dataclass(frozen=True)
class Variants:
    """Two systems under test run on every case, each stored as its own run
    (``RUN_ID-NAME``); the second is compared against the first (pairwise and
    similarity claims, :func:`verifier.compare_runs`).

    Attributes:
        baseline: The first system; its ``variant`` names it.
        candidate: The second, compared against the first; its ``variant`` names it.
    """

    baseline: Sut
    candidate: Sut

    def __post_init__(self) -> None:
        names = (self.baseline.variant, self.candidate.variant)
        if None in names:
            raise RunOptionError("each of the variants needs a name (Sut(..., variant=NAME))")
        if names[0] == names[1]:
            raise RunOptionError(f"--variant: both variants are named {names[0]!r}")

    @property
    def names(self) -> tuple[str, str]:
        """The two variants' names, baseline first."""
        return str(self.baseline.variant), str(self.candidate.variant)


@dataclass(frozen=True)
class Batch:
    """Send the run's judge requests as Message Batches (cheaper, slower).

    Attributes:
        poll: Seconds between two looks at a batch's progress.
    """

    poll: float = 10.0
