"""Sharded runs: one run written by N processes, each checking a part of the cases.

A shard is ``K/N``: it checks the cases whose id hashes to ``K`` (1-based) out of
``N``. The hash is SHA-256 of the case id, so the split depends only on the ids: a
resumed shard, or a rerun on another machine, picks the same cases, and the parts are
disjoint and cover every case. Each shard records itself under the run (its status,
times and the summary of its part); the run's own summary is written once every shard
has finished, from the stored rows of all of them (ADR 0043).
"""

from __future__ import annotations

import hashlib
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from verifier.gaps.records import StoreError

__all__ = [
    "Shard",
    "ShardError",
    "ShardRecord",
    "ShardedStore",
    "shard_of",
    "sharded_store",
    "shards_left",
]

MAX_SHARDS = 1024


class ShardError(StoreError):
    """A shard that cannot be written or a sharded run that cannot be finished."""


def shard_of(case_id: str, count: int) -> int:
    """The shard (1 to ``count``) that checks the case ``case_id``."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (``index`` from 1)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``K/N`` as a shard.

        Raises:
            ValueError: Not ``K/N`` with ``1 <= K <= N <= 1024``; the message says so.
        """
        index, slash, count = text.strip().partition("/")
        if not (slash and index.isdigit() and count.isdigit()):
            raise ValueError(f"{text!r} is not K/N (shard K of N, e.g. 2/4)")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count <= MAX_SHARDS:
            raise ValueError(f"{text!r}: K/N needs 1 <= K <= N <= {MAX_SHARDS}")
        return shard

    @property
    def label(self) -> str:
        """``K/N``."""
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        """Whether this shard checks the case ``case_id``."""
        return shard_of(case_id, self.count) == self.index


@dataclass(frozen=True, slots=True)
class ShardRecord:
    """One shard of a run as the store knows it.

    Attributes:
        status: ``running``, ``finished`` or ``interrupted``, as the shard's writer
            last recorded (a killed shard stays ``running``).
        summary: The totals of the shard's part, recorded when it ended.
    """

    run_id: str
    shard: Shard
    status: str
    started_at: str
    finished_at: str | None
    summary: dict[str, Any] = field(default_factory=dict)


def shards_left(count: int, records: list[ShardRecord]) -> list[str]:
    """What keeps a run of ``count`` shards from finishing, one phrase per shard
    (empty when every shard has finished)."""
    found = {record.shard.index: record for record in records}
    left = []
    for index in range(1, count + 1):
        record = found.get(index)
        if record is None:
            left.append(f"shard {index}/{count} never began")
        elif record.status != "finished":
            left.append(f"shard {index}/{count} is {record.status}")
    return left


@runtime_checkable
class ShardedStore(Protocol):
    """A store that can hold sharded runs (PostgreSQL)."""

    def write_as_shard(self, shard: Shard | None) -> None: ...

    def shards(self, run_id: str) -> list[ShardRecord]: ...

    def holding_run(self, run_id: str) -> AbstractContextManager[None]: ...


def sharded_store(store: object) -> ShardedStore:
    """``store`` as a store of sharded runs.

    Raises:
        ShardError: ``store`` is a SQLite file, which one machine writes: shards on
            several machines need a PostgreSQL store.
    """
    if not isinstance(store, ShardedStore):
        location = getattr(store, "location", "this store")
        raise ShardError(
            f"sharded runs need a PostgreSQL store (--store postgresql://...); "
            f"{location} is a SQLite file, written from one machine"
        )
    return store
