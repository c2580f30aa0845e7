"""Witness files through the CLI, on SQLite and PostgreSQL: ``verifier run --witness``
appends each run's head, ``verifier audit --witness`` checks every one.

An intruder who rewrites a store consistently (a flipped verdict with every later row
and seal hashed again, a cut tail, the newest run dropped, every table emptied) leaves
a store the plain audit calls ok; the heads witnessed before each catch it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.engine.test_interrupt import RUBRIC
from tests.gaps._backends import Backend, PostgresBackend, reseal
from tests.gaps.test_sealed_store import rewrite_rows

# case-3 fails both claims; the others pass both.
CASES = [
    {
        "id": f"case-{i}",
        "fields": {"total": 500 if i == 3 else i, "name": "Bad!" if i == 3 else "ok"},
    }
    for i in range(6)
]


@pytest.fixture
def witnessed(store_backend: Backend, tmp_path: Path) -> Backend:
    """Three runs of six cases (12 rows each, three appends a run), each witnessed."""
    (tmp_path / "c.yaml").write_text(RUBRIC)
    (tmp_path / "c.cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    for _ in range(3):
        done = cli(tmp_path, "run", "c.yaml", *store(store_backend), "--chunk-size", "2",
                   "--witness", "heads.jsonl")  # fmt: skip
        assert done.returncode == 1, done.stderr  # case-3 fails
        assert "witnessed in heads.jsonl" in done.stderr
    return store_backend


def cli(tmp_path: Path, *args: str) -> Any:
    return verifier(*args, cwd=tmp_path, clear_prefixes=("VERIFIER_", "GITHUB_"))


def store(backend: Backend) -> tuple[str, str]:
    return ("--store", backend.target)


def lines(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "heads.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def audits(backend: Backend, tmp_path: Path) -> tuple[Any, Any]:
    """The plain audit and the audit against the witness file."""
    plain = cli(tmp_path, "audit", *store(backend))
    checked = cli(tmp_path, "audit", *store(backend), "--witness", "heads.jsonl")
    return plain, checked


def broken(result: Any) -> list[str]:
    """The witness lines the audit reports broken, by line number."""
    return [
        line.split("heads.jsonl:", 1)[1].split(":", 1)[0]
        for line in result.stdout.splitlines()
        if line.startswith("  [head] heads.jsonl:")
    ]


def seals_of(backend: Backend, run_id: str) -> list[tuple[int, str, int]]:
    """The run's seals as (n, kind, last row recorded), in order."""
    found = backend.query("SELECT n, kind, subject, body FROM seals ORDER BY n")
    ours = []
    for n, kind, subject, body in found:
        if subject == run_id or run_id in json.loads(body).get("runs", []):
            ours.append((n, kind, json.loads(body)["rows"]["seq"]))
    return ours


def test_each_run_appends_its_head_and_an_untampered_store_holds_every_one(
    witnessed: Backend, tmp_path: Path
) -> None:
    entries = lines(tmp_path)
    assert [e["rows"] for e in entries] == [12, 24, 36]
    assert len({e["run_id"] for e in entries}) == 3
    for entry in entries:
        assert list(entry) == ["schema", "run_id", "store", "seal", "rows", "head", "recorded_at"]
        assert entry["schema"] == "verifier.witness.v1"
    plain, checked = audits(witnessed, tmp_path)
    assert plain.returncode == 0 and checked.returncode == 0, checked.stdout + checked.stderr
    assert "witness heads.jsonl: 3 head(s) checked, every one held" in checked.stderr
    # The head a run prints is the one it witnessed.
    last = entries[-1]
    assert f"head: {last['head']} (seal {last['seal']}," in checked.stdout


def test_a_flipped_verdict_sealed_again_passes_the_audit_but_not_the_witness(
    witnessed: Backend, tmp_path: Path
) -> None:
    second = lines(tmp_path)[1]["run_id"]
    query = "SELECT seq FROM rows WHERE run_id = ? AND case_id = 'case-3' AND claim_id = 'named'"
    ((seq,),) = witnessed.query(query, (second,))
    rewrite_rows(witnessed, seq, status="pass", score=1.0)
    # The summary's counts made to agree, as the intruder would (case-3 still fails).
    ((text,),) = witnessed.query("SELECT summary FROM runs WHERE run_id = ?", (second,))
    summary = json.loads(text)
    named = summary["assertion_breakdown"]["named"]
    named.update(passed=named["passed"] + 1, failed=named["failed"] - 1)
    witnessed.tamper(
        ("UPDATE runs SET summary = ? WHERE run_id = ?", (json.dumps(summary), second))
    )
    reseal(witnessed)
    plain, checked = audits(witnessed, tmp_path)
    assert plain.returncode == 0, plain.stdout
    assert checked.returncode == 1
    assert broken(checked) == ["2", "3"]  # the first run's head is still held
    assert f"run {second}'s head {lines(tmp_path)[1]['head']}" in checked.stdout
    assert "the store was rewritten since it was witnessed" in checked.stdout
    assert "3 head(s) checked, 1 held" in checked.stderr


def test_a_truncated_tail_passes_the_audit_but_not_the_witness(
    witnessed: Backend, tmp_path: Path
) -> None:
    newest = lines(tmp_path)[2]["run_id"]
    n, kind, seq = seals_of(witnessed, newest)[1]  # its first append
    assert kind == "append"
    witnessed.tamper(
        ("DELETE FROM rows WHERE seq > ?", (seq,)),
        ("DELETE FROM seals WHERE n > ?", (n,)),
        ("UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ?", (newest,)),
    )
    plain, checked = audits(witnessed, tmp_path)
    assert plain.returncode == 0, plain.stdout
    assert f"in flight: 1 run(s) still running ({newest})" in plain.stdout
    assert checked.returncode == 1 and broken(checked) == ["3"]
    assert f"is gone: the seal chain ends at seal {n}, so the store was cut" in checked.stdout


def test_the_newest_run_dropped_passes_the_audit_but_not_the_witness(
    witnessed: Backend, tmp_path: Path
) -> None:
    newest = lines(tmp_path)[2]["run_id"]
    begun = seals_of(witnessed, newest)[0][0]
    witnessed.tamper(
        ("DELETE FROM rows WHERE run_id = ?", (newest,)),
        ("DELETE FROM runs WHERE run_id = ?", (newest,)),
        ("DELETE FROM seals WHERE n >= ?", (begun,)),
    )
    plain, checked = audits(witnessed, tmp_path)
    assert plain.returncode == 0, plain.stdout
    assert checked.returncode == 1 and broken(checked) == ["3"]
    assert f"run {newest}'s head" in checked.stdout


def test_an_emptied_store_passes_the_audit_but_not_the_witness(
    witnessed: Backend, tmp_path: Path
) -> None:
    tables = ("rows", "runs", "seals", "contracts", "contents")
    witnessed.tamper(*(f"DELETE FROM {table}" for table in tables))
    plain, checked = audits(witnessed, tmp_path)
    assert plain.returncode == 0, plain.stdout
    assert checked.returncode == 1 and broken(checked) == ["1", "2", "3"]
    assert "is gone: the seal chain holds no seal, so the store was cut or emptied" in (
        checked.stdout
    )


def test_a_recheck_checks_the_witness_too(witnessed: Backend, tmp_path: Path) -> None:
    args = ("audit", "--recheck", *store(witnessed), "--witness", "heads.jsonl")
    held = cli(tmp_path, *args)
    assert held.returncode == 0, held.stdout + held.stderr
    witnessed.tamper("DELETE FROM seals WHERE n > 1")
    caught = cli(tmp_path, *args)
    assert caught.returncode == 1
    # The witness is checked by the audit a recheck runs too, and printed with its problems.
    assert "heads.jsonl:3: run " in caught.stdout.split("\n\n", 1)[1]


def test_a_bad_witness_line_is_one_located_error(witnessed: Backend, tmp_path: Path) -> None:
    heads = tmp_path / "heads.jsonl"
    good = heads.read_text(encoding="utf-8").splitlines()
    for bad, problem in [
        ("not json", "not a JSON line"),
        ('{"schema": "verifier.witness.v1"}', "run_id is not a non-empty string"),
        (good[0].replace('"seal":', '"seal":-'), "seal is not a position in a seal chain"),
        (good[0][:-1] + ', "extra": 1}', "unknown key 'extra'"),
        (good[0].replace('"head":"', '"head":"x'), "head is not 64 lowercase hex digits"),
    ]:
        heads.write_text("\n".join([good[0], bad, good[1]]) + "\n", encoding="utf-8")
        result = cli(tmp_path, "audit", *store(witnessed), "--witness", "heads.jsonl")
        assert result.returncode == 2, result.stdout
        assert result.stderr.startswith(f"error: heads.jsonl:2: {problem}")
        assert result.stderr.count("\n") == 1 and not result.stdout
    missing = cli(tmp_path, "audit", *store(witnessed), "--witness", "nowhere.jsonl")
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: nowhere.jsonl: cannot read the witness file")


def test_a_witness_line_edited_to_name_other_rows_is_caught(
    witnessed: Backend, tmp_path: Path
) -> None:
    heads = tmp_path / "heads.jsonl"
    first, *rest = heads.read_text(encoding="utf-8").splitlines()
    heads.write_text("\n".join([first.replace('"rows":12', '"rows":11'), *rest]) + "\n")
    result = cli(tmp_path, "audit", *store(witnessed), "--witness", "heads.jsonl")
    assert result.returncode == 1 and broken(result) == ["1"]
    assert "the seal with that head commits to rows up to seq 12" in result.stdout


def test_a_witness_the_run_cannot_write_is_refused_before_the_run(
    store_backend: Backend, tmp_path: Path
) -> None:
    (tmp_path / "c.yaml").write_text(RUBRIC)
    (tmp_path / "c.cases.jsonl").write_text(json.dumps(CASES[0]) + "\n")
    result = cli(tmp_path, "run", "c.yaml", *store(store_backend), "--witness", "no/dir/h.jsonl")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        "error: no/dir/h.jsonl: cannot open the witness file: No such file or directory"
    )
    with store_backend.open() as opened:
        assert opened.runs() == []


def test_a_line_added_by_hand_without_its_newline_loses_nothing(
    witnessed: Backend, tmp_path: Path
) -> None:
    heads = tmp_path / "heads.jsonl"
    kept = heads.read_text(encoding="utf-8").splitlines()
    heads.write_text("\n".join(kept), encoding="utf-8")  # the last newline dropped
    done = cli(tmp_path, "run", "c.yaml", *store(witnessed), "--witness", "heads.jsonl")
    assert done.returncode == 1, done.stderr
    assert [e["head"] for e in lines(tmp_path)][:3] == [json.loads(k)["head"] for k in kept]
    assert len(lines(tmp_path)) == 4
    assert cli(tmp_path, "audit", *store(witnessed), "--witness", "heads.jsonl").returncode == 0


def test_a_postgres_witness_names_the_store_without_its_password(
    postgres_url: str, tmp_path: Path
) -> None:
    from urllib.parse import urlsplit

    password = urlsplit(postgres_url).password
    (tmp_path / "c.yaml").write_text(RUBRIC)
    (tmp_path / "c.cases.jsonl").write_text(json.dumps(CASES[0]) + "\n")
    done = cli(tmp_path, "run", "c.yaml", "--store", postgres_url, "--witness", "heads.jsonl")
    assert done.returncode == 0, done.stderr
    (entry,) = lines(tmp_path)
    assert entry["store"].startswith("postgresql://")
    assert password and password not in (tmp_path / "heads.jsonl").read_text(encoding="utf-8")


def test_each_shard_witnesses_its_end_and_the_last_the_runs(
    postgres_url: str, tmp_path: Path
) -> None:
    (tmp_path / "c.yaml").write_text(RUBRIC)
    (tmp_path / "c.cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CASES))
    for k in (1, 2):
        done = cli(tmp_path, "run", "c.yaml", "--store", postgres_url, "--shard", f"{k}/2",
                   "--run-id", "R", "--witness", "heads.jsonl")  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
    first, last = lines(tmp_path)
    assert first["run_id"] == last["run_id"] == "R"
    assert first["shard"] == "1/2" and "shard" not in last  # the run's end covers both
    ((end,),) = PostgresBackend(postgres_url).query("SELECT MAX(n) FROM seals WHERE kind = 'end'")
    assert last["seal"] == end and first["seal"] < end
    checked = cli(tmp_path, "audit", "--store", postgres_url, "--witness", "heads.jsonl")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _append_many(path: str, tag: int) -> None:
    from verifier.gaps.witness import WitnessEntry, append_witness

    for i in range(100):
        entry = WitnessEntry(
            f"run-{tag}-{i}", "gaps.db", i + 1, i, "a" * 64, "2026-11-28T00:00:00Z"
        )
        append_witness(Path(path), [entry])


@pytest.mark.e2e
def test_runs_appending_at_once_never_lose_or_tear_a_line(tmp_path: Path) -> None:
    import multiprocessing

    from verifier.gaps.witness import read_witness

    heads = tmp_path / "heads.jsonl"
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_append_many, args=(str(heads), t)) for t in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0
    entries = read_witness(heads)
    assert len(entries) == 400
    assert {e.run_id for _, e in entries} == {f"run-{t}-{i}" for t in range(4) for i in range(100)}
