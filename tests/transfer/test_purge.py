"""`verifier purge --content` deletes the stored contents of chosen runs that no other
run refers to; every row, its hash and the chain stay, and the audit still passes
(SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.gaps._backends import Backend
from tests.gaps.test_record_policy import CASE_LIST, CASES
from verifier.gaps.content import content_hash_of
from verifier.gaps.store import open_store

CONTRACT = CASES.parent / "account-research.yaml"


def run_cases(tmp_path: Path, store: str, cases: list[dict], name: str) -> str:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    result = verifier("run", str(CONTRACT), "--cases", str(path), "--store", store, cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    with open_store(store) as gap_store:
        last = gap_store.last_run()
        assert last is not None
        return last.run_id


def snapshot(store: str) -> tuple[list[tuple[int, str]], dict[str, set[str]], set[str]]:
    """Every row's seq and hash, each run's content hashes, and the stored contents."""
    with open_store(store) as gap_store:
        rows = list(gap_store.iter_rows())
        stored = {sha for sha, _ in gap_store.iter_contents()}
    by_run: dict[str, set[str]] = {}
    for row in rows:
        sha = content_hash_of(row.body)
        assert sha is not None
        by_run.setdefault(row.run_id, set()).add(sha)
    return [(r.seq, r.row_hash) for r in rows], by_run, stored


def purge(tmp_path: Path, store: str, *args: str) -> tuple[int, str, str]:
    result = verifier("purge", "--content", *args, "--store", store, cwd=tmp_path)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def test_purging_a_run_deletes_only_contents_no_other_run_uses_and_keeps_every_row(
    tmp_path: Path, store_backend: Backend
) -> None:
    store = store_backend.target
    first = run_cases(tmp_path, store, CASE_LIST, "all")
    second = run_cases(tmp_path, store, CASE_LIST[:2], "some")
    rows, by_run, stored = snapshot(store)
    assert stored == by_run[first] and by_run[second] < by_run[first]

    code, out, err = purge(tmp_path, store, "--run", first)
    assert code == 0, err
    only_first = by_run[first] - by_run[second]
    assert sorted(line.split()[2] for line in out.splitlines()) == sorted(only_first)
    assert f"purged {len(only_first)} content(s)" in err and "2 kept" in err
    after_rows, _, after_stored = snapshot(store)
    assert after_rows == rows and after_stored == by_run[second]
    audit = verifier("audit", "--store", store, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout

    code, out, err = purge(tmp_path, store, "--before", "2999-01-01")
    assert code == 0, err
    assert len(out.splitlines()) == len(by_run[second])
    assert snapshot(store)[1:] == (by_run, set()) and snapshot(store)[0] == rows
    audit = verifier("audit", "--store", store, cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout


def test_a_purged_content_leaves_the_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "gaps.db"
    run_id = run_cases(tmp_path, str(db), CASE_LIST, "all")
    outputs = [c["output"].encode() for c in CASE_LIST]

    def file_bytes() -> bytes:
        return b"".join(p.read_bytes() for p in sorted(tmp_path.glob("gaps.db*")) if p.is_file())

    assert all(o in file_bytes() for o in outputs)
    code, _, err = purge(tmp_path, str(db), "--run", run_id)
    assert code == 0, err
    assert not any(o in file_bytes() for o in outputs)
    # An export of the purged store carries the rows and no content.
    export = verifier("export", "--store", str(db), cwd=tmp_path)
    assert export.returncode == 0, export.stderr
    assert "gap-export.content" not in export.stdout and run_id in export.stdout


def test_runs_started_after_the_date_keep_their_contents(tmp_path: Path) -> None:
    db = str(tmp_path / "gaps.db")
    run_cases(tmp_path, db, CASE_LIST, "all")
    code, out, err = purge(tmp_path, db, "--before", "2000-01-01T00:00:00Z")
    assert code == 0, err
    assert out == "" and "purged 0 content(s), 0 bytes, of 0 run(s)" in err
    assert len(snapshot(db)[2]) == len(CASE_LIST)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "error: choose what to purge: --run RUN_ID or --before DATE"),
        (("--run", "r", "--before", "2020-01-01"), "error: choose what to purge"),
        (("--run", "no-such-run"), "error: no run no-such-run in "),
        (("--before", "last week"), "error: --before 'last week': not a date"),
    ],
)
def test_a_purge_of_nothing_nameable_is_refused_in_one_line(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    db = str(tmp_path / "gaps.db")
    run_cases(tmp_path, db, CASE_LIST[:1], "one")
    code, out, err = purge(tmp_path, db, *args)
    assert code == 2 and out == ""
    assert err.startswith(message) and len(err.splitlines()) == 1, err
    assert len(snapshot(db)[2]) == 1


def test_purge_says_what_it_deletes_when_told_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "gaps.db")
    run_cases(tmp_path, db, CASE_LIST[:1], "one")
    result = verifier("purge", "--run", "x", "--store", db, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "error: say what to purge: --content (stored case contents)\n"
