"""Export to JSONL and Parquet, and import a JSONL export into another store."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.analyses._history import day, judge_evidence, plant_run
from tests.gaps._backends import Backend
from tests.gaps._support import begin, draft, finish
from verifier.analyses.audit import audit_store
from verifier.gaps.chain import GENESIS, row_hash_of, verify_link
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import CHAIN_SUMMARY_KEY, StoredRow, StoreError
from verifier.transfer._format import RESEALED_KEY, exported_form
from verifier.transfer.export import export_jsonl, export_parquet
from verifier.transfer.importer import ExportRefused, import_jsonl


def source_store(path: Path) -> Path:
    """Three runs: finished, interrupted, and still running; rubric and judge rows."""
    with SqliteStore(path) as store:
        plant_run(
            store,
            "r1",
            started_at=day(1),
            passes={"cites": (4, 5), "tone": (2, 3)},
            evidence={"tone": judge_evidence()},
        )
        plant_run(store, "r2", started_at=day(2), passes={"cites": (5, 5)}, finish=False)
        store.finish_run(
            "r2", status="interrupted", finished_at=day(2, 11), summary={"total_cases": 5}
        )
        plant_run(store, "r3", started_at=day(3), passes={"cites": (1, 2)}, finish=False)
    return path


def export_text(path: Path, run_id: str | None = None) -> str:
    out = io.StringIO()
    with SqliteStore(path) as store:
        export_jsonl(store, out, run_id=run_id, exported_at="2026-11-30T00:00:00Z")
    return out.getvalue()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def rows_of(path: Path) -> list[StoredRow]:
    with SqliteStore(path) as store:
        return list(store.iter_rows())


def body(row: StoredRow) -> dict[str, Any]:
    parsed: dict[str, Any] = orjson.loads(row.body)
    return parsed


def imported(export: Path, target: Path) -> int:
    with SqliteStore(target) as store:
        return import_jsonl(export, store).rows


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return source_store(tmp_path / "source.db")


@pytest.fixture
def export(source: Path, tmp_path: Path) -> Path:
    return write(tmp_path / "export.jsonl", export_text(source))


def test_a_jsonl_export_holds_each_stored_body_with_its_row_hash(source: Path) -> None:
    lines = export_text(source).splitlines()
    header = json.loads(lines[0])
    assert header["schema"] == "verifier.gap-export.v1" and header["scope"] == "store"
    stored = rows_of(source)
    row_lines = lines[1 : 1 + len(stored)]
    for line, row in zip(row_lines, stored, strict=True):
        parsed = json.loads(line)
        assert parsed["row_hash"] == row.row_hash
        assert line == row.body[:-1] + f',"row_hash":"{row.row_hash}"}}'
    kinds = [json.loads(line)["schema"] for line in lines[1 + len(stored) :]]
    with SqliteStore(source) as store:
        seals = list(store.iter_seals())
    assert kinds == [*["verifier.gap-export.seal.v1"] * len(seals),
                     "verifier.gap-export.contract.v1", *["verifier.gap-export.run.v1"] * 3,
                     "verifier.gap-export.end.v1"]  # fmt: skip
    end = json.loads(lines[-1])
    assert (end["rows"], end["runs"], end["last_hash"]) == (len(stored), 3, stored[-1].row_hash)
    assert end["head"] == seals[-1].seal_hash


def test_round_trip_into_an_empty_store_keeps_every_row_and_its_hash(
    source: Path, export: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target.db"
    assert imported(export, target) == 15
    before, after = rows_of(source), rows_of(target)
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        moved = body(new)
        hops = moved["evidence"].pop(RESEALED_KEY)
        assert hops == [{"seq": old.seq, "prev_hash": old.prev_hash, "row_hash": old.row_hash}]
        original = body(old)
        for chain_field in ("seq", "prev_hash"):
            moved.pop(chain_field), original.pop(chain_field)
        assert moved == original  # every field of every row, kind included
        # The original hash re-verifies from the imported row alone.
        exported_body, prev_hash, row_hash = exported_form(body(new)) or (b"", "", "")
        assert exported_body == old.body.encode() and row_hash == old.row_hash
        assert verify_link(prev_hash, exported_body, row_hash)
    with SqliteStore(target) as store:
        assert audit_store(store).ok


def test_round_trip_keeps_the_runs_and_their_contract(
    source: Path, export: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target.db"
    imported(export, target)
    with SqliteStore(source) as a, SqliteStore(target) as b:
        for old in a.runs():
            new = b.run(old.run_id)
            assert new is not None
            same = ("contract_sha256", "started_at", "finished_at", "status", "options")
            assert all(getattr(new, name) == getattr(old, name) for name in same)
            assert {k: v for k, v in new.summary.items() if k != CHAIN_SUMMARY_KEY} == {
                k: v for k, v in old.summary.items() if k != CHAIN_SUMMARY_KEY
            }
        assert b.contract(a.runs()[0].contract_sha256) == a.contract(a.runs()[0].contract_sha256)
    assert [r.status for r in SqliteStore(target).runs()] == ["finished", "interrupted", "running"]


def test_imported_rows_join_the_end_of_a_store_that_has_rows(export: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.db"
    with SqliteStore(target) as store:
        begin(store, "own")
        store.append([draft(n, "own") for n in range(1, 8)])
        finish(store, "own")
    imported(export, target)
    rows = rows_of(target)
    assert [r.run_id for r in rows[:7]] == ["own"] * 7
    assert rows[7].seq == 8 and rows[7].prev_hash == rows[6].row_hash
    assert body(rows[7])["evidence"][RESEALED_KEY][0]["seq"] == 1
    with SqliteStore(target) as store:
        assert audit_store(store).ok


def test_a_second_hop_keeps_both_origins(export: Path, tmp_path: Path) -> None:
    middle, last = tmp_path / "middle.db", tmp_path / "last.db"
    imported(export, middle)
    again = write(tmp_path / "again.jsonl", export_text(middle))
    imported(again, last)
    first_middle, first_last = rows_of(middle)[0], rows_of(last)[0]
    hops = body(first_last)["evidence"][RESEALED_KEY]
    assert [h["row_hash"] for h in hops] == [
        body(first_middle)["evidence"][RESEALED_KEY][0]["row_hash"],
        first_middle.row_hash,
    ]
    exported_body, prev_hash, row_hash = exported_form(body(first_last)) or (b"", "", "")
    assert exported_body == first_middle.body.encode()
    assert verify_link(prev_hash, exported_body, row_hash)


def test_a_run_exported_alone_imports(source: Path, tmp_path: Path) -> None:
    text = export_text(source, run_id="r2")
    assert json.loads(text.splitlines()[0])["scope"] == "run"
    target = tmp_path / "target.db"
    assert imported(write(tmp_path / "r2.jsonl", text), target) == 5
    with SqliteStore(target) as store:
        assert [r.run_id for r in store.runs()] == ["r2"]
        assert audit_store(store).ok


def test_a_line_rewritten_by_another_json_tool_still_verifies(export: Path, tmp_path: Path) -> None:
    lines = export.read_text(encoding="utf-8").splitlines()
    rewritten = [json.dumps(json.loads(line), ensure_ascii=True, indent=None) for line in lines]
    again = write(tmp_path / "rewritten.jsonl", "\n".join(rewritten) + "\n")
    assert imported(again, tmp_path / "target.db") == 15


def assert_refused(export: Path, tmp_path: Path, line: int, reason: str) -> None:
    target = tmp_path / "target.db"
    with SqliteStore(target) as store, pytest.raises(ExportRefused) as refused:
        import_jsonl(export, store)
    assert refused.value.line == line
    assert reason in refused.value.reason
    with SqliteStore(target) as store:  # nothing was written
        assert store.runs() == [] and list(store.iter_rows()) == []


def edit(export: Path, line: int, old: str, new: str) -> Path:
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    export.write_text("".join(lines), encoding="utf-8")
    return export


def test_a_tampered_row_is_refused_naming_its_line(export: Path, tmp_path: Path) -> None:
    edit(export, 6, '"status":"fail"', '"status":"pass"')
    assert_refused(export, tmp_path, 6, "row 5 was edited: its hash does not match its content")


def test_a_row_resealed_by_a_forger_breaks_the_next_link(export: Path, tmp_path: Path) -> None:
    lines = export.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[5])  # row 5, a fail
    row["status"], row["score"] = "pass", 1.0
    row.pop("row_hash")
    forged_body = orjson.dumps(row, option=orjson.OPT_SORT_KEYS)
    forged_hash = row_hash_of(row["prev_hash"], forged_body)
    lines[5] = forged_body.decode()[:-1] + f',"row_hash":"{forged_hash}"}}'
    write(export, "\n".join(lines) + "\n")
    assert_refused(export, tmp_path, 7, "row 6's prev_hash does not match row 5's hash")


def test_a_deleted_row_is_refused(export: Path, tmp_path: Path) -> None:
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    del lines[6]  # row 6
    write(export, "".join(lines))
    assert_refused(export, tmp_path, 7, "rows 6-6 are missing")


def test_a_row_deleted_from_a_run_export_is_refused_at_its_run_line(
    source: Path, tmp_path: Path
) -> None:
    lines = export_text(source, run_id="r1").splitlines(keepends=True)
    del lines[8]  # the last row of r1: no link after it to break
    export = write(tmp_path / "r1.jsonl", "".join(lines))
    run_line = next(n for n, line in enumerate(lines, 1) if "gap-export.run.v1" in line)
    assert_refused(export, tmp_path, run_line, "run r1 was exported with 8 rows")


def test_a_cut_short_export_is_refused(export: Path, tmp_path: Path) -> None:
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    write(export, "".join(lines[:12]))
    assert_refused(export, tmp_path, 13, "without its end line")


def test_a_run_already_in_the_target_is_refused(export: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.db"
    imported(export, target)
    with SqliteStore(target) as store, pytest.raises(ExportRefused, match="already in"):
        import_jsonl(export, store)
    assert len(rows_of(target)) == 15


def test_a_file_that_is_not_an_export_is_refused(tmp_path: Path) -> None:
    assert_refused(write(tmp_path / "x.jsonl", '{"a": 1}\n'), tmp_path, 1, "no header line")
    assert_refused(write(tmp_path / "y.jsonl", "[1]\n"), tmp_path, 1, "not a JSON object")
    assert_refused(write(tmp_path / "z.jsonl", ""), tmp_path, 1, "empty")


def test_an_edited_contract_is_refused(export: Path, tmp_path: Path) -> None:
    line = next(
        n for n, text in enumerate(export.read_text().splitlines(), 1) if "contract.v1" in text
    )
    edit(export, line, "claims", "claimz")
    assert_refused(export, tmp_path, line, "does not hash to it")


def test_an_export_of_an_empty_store_imports_nothing(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "empty.db").close()
    export = write(tmp_path / "e.jsonl", export_text(tmp_path / "empty.db"))
    assert imported(export, tmp_path / "target.db") == 0


def test_exporting_an_unknown_run_fails(source: Path) -> None:
    with pytest.raises(StoreError, match="no run nope"):
        export_text(source, run_id="nope")


def test_the_genesis_of_a_store_export_is_checked(export: Path, tmp_path: Path) -> None:
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    del lines[1]  # row 1
    write(export, "".join(lines))
    assert_refused(export, tmp_path, 2, "starts at seq 1, not at seq 2")
    assert GENESIS == "0" * 64


def test_parquet_export_is_readable_with_the_fixed_columns(source: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from verifier.transfer._parquet import COLUMNS

    out = tmp_path / "rows.parquet"
    with SqliteStore(source) as store:
        summary = export_parquet(store, out, batch_rows=7)  # row groups of 7, 7 and 1
    table = pq.read_table(out)
    assert table.column_names == list(COLUMNS)
    assert table.num_rows == summary.rows == 15
    assert pq.ParquetFile(out).metadata.num_row_groups == 3
    assert str(table.schema.field("seq").type) == "int64"
    assert str(table.schema.field("score").type) == "double"
    stored = rows_of(source)
    records = table.to_pylist()
    for record, row in zip(records, stored, strict=True):
        original = body(row)
        assert record["row_hash"] == row.row_hash and record["seq"] == row.seq
        assert json.loads(record["evidence"]) == original["evidence"]
        assert record["status"] == original["status"] and record["score"] == original["score"]


def test_round_trip_through_either_backend(
    source: Path, export: Path, store_backend: Backend, tmp_path: Path
) -> None:
    out = io.StringIO()
    with store_backend.open() as store:
        assert import_jsonl(export, store).rows == 15
        assert audit_store(store).ok
        export_jsonl(store, out)
    back = tmp_path / "back.db"
    imported(write(tmp_path / "again.jsonl", out.getvalue()), back)
    for old, new in zip(rows_of(source), rows_of(back), strict=True):
        hops = body(new)["evidence"][RESEALED_KEY]
        assert hops[0]["row_hash"] == old.row_hash and len(hops) == 2
