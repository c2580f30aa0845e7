"""Duplicate case ids are found exactly, in memory that stays flat past any number of ids."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from verifier._internal.seen_ids import SeenIds
from verifier.cases import read_cases


def test_duplicates_are_reported_alike_before_and_after_the_ids_move_to_disk(
    tmp_path: Path,
) -> None:
    ids = [f"c{i}" for i in range(10)] + ["c1", "c9", 3, "3", "new", "new"]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(f'{{"id": {i!r}}}\n'.replace("'", '"') for i in ids))
    seen = SeenIds(in_memory=4)
    lines = list(read_cases(path, seen=seen))
    errors = {line.line: line.error for line in lines if line.error}
    assert errors == {
        11: "line 11: duplicate case id 'c1'",
        12: "line 12: duplicate case id 'c9'",
        14: "line 14: duplicate case id '3'",
        16: "line 16: duplicate case id 'new'",
    }
    assert [line.case_id for line in lines][10:] == [
        "c1@line-11", "c9@line-12", "3", "3@line-14", "new", "new@line-16",
    ]  # fmt: skip


def test_distinct_ids_are_never_taken_for_duplicates() -> None:
    seen = SeenIds(in_memory=100)
    # Ids that differ in one character, in case, and by a trailing space.
    ids = [f"case-{i}" for i in range(5000)] + ["Case-1", "case-1 ", "case-01", "\uff43ase-1"]
    assert all(seen.add(case_id) for case_id in ids)
    assert seen.on_disk
    assert not any(seen.add(case_id) for case_id in ids)
    seen.close()


def test_memory_stays_flat_once_the_ids_are_on_disk() -> None:
    seen = SeenIds(in_memory=1000)
    tracemalloc.start()
    try:
        for i in range(200_000):
            seen.add(f"a-rather-long-case-identifier-{i:08d}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        seen.close()
    # 200,000 ids of 38 characters held in a set would take more than 15 MB.
    assert peak < 1_000_000
