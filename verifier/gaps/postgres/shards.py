"""The shard records of sharded runs in a PostgreSQL store (table ``run_shards``).

Written inside the store's write transactions (under the chain lock), next to the
run record they belong to. They coordinate the shards and say which one is missing;
they are not evidence, so they are not sealed: the run's ``end`` seal commits to the
summary computed from the rows of every shard (ADR 0043).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from verifier._internal.canonical import canonical_json
from verifier.gaps.shards import Shard, ShardError, ShardRecord

__all__ = [
    "SHARD_COLUMNS",
    "begin_shard",
    "check_writer",
    "end_shard",
    "read_shards",
    "sharded_options",
]

Execute = Callable[..., Any]

SHARDS_OPTION = "shards"
"""Key of a sharded run's options holding its number of shards."""


def sharded_options(options: Mapping[str, Any], shard: Shard | None) -> dict[str, Any]:
    """The options a run records: a sharded run's say how many shards write it."""
    recorded = dict(options)
    if shard is not None:
        recorded[SHARDS_OPTION] = shard.count
    return recorded


def check_writer(run_id: str, recorded: Mapping[str, Any], shard: Shard | None) -> None:
    """Refuses a writer that does not fit the run: an unsharded writer of a sharded
    run, a shard of an unsharded one, or a shard of another count.

    Raises:
        ShardError: The writer does not fit.
    """
    count = recorded.get(SHARDS_OPTION)
    if shard is None and count is not None:
        raise ShardError(
            f"run {run_id} is written by {count} shards: resume one with "
            f"--resume {run_id} --shard K/{count}, or finish it with --finish {run_id}"
        )
    if shard is not None and count != shard.count:
        what = "is not sharded" if count is None else f"has {count} shards"
        raise ShardError(f"run {run_id} {what}; it cannot take shard {shard.label}")


def begin_shard(execute: Execute, run_id: str, shard: Shard, started_at: str) -> None:
    """Records the shard as running (again, when resumed).

    Raises:
        ShardError: The shard has already finished.
    """
    found = execute(
        "SELECT status FROM run_shards WHERE run_id = %s AND shard = %s", (run_id, shard.index)
    ).fetchone()
    if found is None:
        execute(
            "INSERT INTO run_shards (run_id, shard, shards, started_at, status, summary)"
            " VALUES (%s, %s, %s, %s, 'running', '{}')",
            (run_id, shard.index, shard.count, started_at),
        )
    elif found[0] == "finished":
        raise ShardError(f"shard {shard.label} of run {run_id} has already finished")
    else:
        execute(
            "UPDATE run_shards SET status = 'running', finished_at = NULL"
            " WHERE run_id = %s AND shard = %s",
            (run_id, shard.index),
        )


def end_shard(
    execute: Execute,
    run_id: str,
    shard: Shard,
    *,
    status: str,
    finished_at: str,
    summary: Mapping[str, Any],
) -> None:
    """Records the shard's end and the summary of its part."""
    execute(
        "UPDATE run_shards SET status = %s, finished_at = %s, summary = %s"
        " WHERE run_id = %s AND shard = %s",
        (status, finished_at, canonical_json(dict(summary)).decode("utf-8"), run_id, shard.index),
    )


def read_shards(rows: list[tuple[Any, ...]], run_id: str) -> list[ShardRecord]:
    """Shard records from ``SELECT {SHARD_COLUMNS}`` rows."""
    return [
        ShardRecord(run_id, Shard(index, count), status, started, finished, orjson.loads(summary))
        for index, count, status, started, finished, summary in rows
    ]


SHARD_COLUMNS = "shard, shards, status, started_at, finished_at, summary"
