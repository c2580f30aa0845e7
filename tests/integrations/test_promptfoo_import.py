"""`verifier import promptfoo`: one reduced assertion result becomes one imported gap row."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tests._cli import cli
from tests.conftest import FIXTURES
from verifier._internal.canonical import sha256_hex
from verifier.analyses.audit import audit_store
from verifier.gaps.row import GapRow
from verifier.gaps.sqlite.store import SqliteStore
from verifier.integrations.promptfoo_artifact import MalformedPromptfooResult
from verifier.integrations.promptfoo_import import (
    import_contract_source,
    import_promptfoo_result,
)

PROMPTFOO = FIXTURES / "promptfoo"
PASSING = PROMPTFOO / "surfaced" / "equals-pass.json"
FAILING = PROMPTFOO / "surfaced" / "equals-fail.json"


def stored_rows(path: Path) -> list[dict[str, object]]:
    with SqliteStore(path) as store:
        return [{**json.loads(r.body), "row_hash": r.row_hash} for r in store.iter_rows()]


@pytest.mark.parametrize(
    ("fixture", "status", "score", "reason"),
    [
        (PASSING, "pass", 1.0, "Assertion passed"),
        (FAILING, "fail", 0.0, 'Expected output "Lyon" to equal "Paris"'),
    ],
)
def test_import_records_one_imported_row_with_the_artifact_and_file_hash(
    tmp_path: Path, fixture: Path, status: str, score: float, reason: str
) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        done = import_promptfoo_result(fixture, store)
    [row] = stored_rows(tmp_path / "gaps.db")
    GapRow.model_validate(row)
    assert (row["kind"], row["status"], row["score"], row["reason"]) == (
        "imported",
        status,
        score,
        reason,
    )
    assert row["claim_id"] == "equals" and row["case_id"] == "promptfoo-assertion"
    assert row["run_id"] == done.run_id and row["row_id"] == f"{done.run_id}:1:equals"
    expected_artifact = json.loads(
        (PROMPTFOO / "reduced" / f"{fixture.stem}.v1.json").read_text(encoding="utf-8")
    )
    assert row["evidence"] == {
        "promptfoo": expected_artifact,
        "source_sha256": hashlib.sha256(fixture.read_bytes()).hexdigest(),
    }


def test_import_run_has_a_synthetic_contract_shared_by_every_import(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        first = import_promptfoo_result(PASSING, store)
        second = import_promptfoo_result(FAILING, store)
        runs = [store.run(first.run_id), store.run(second.run_id)]
        assert all(r is not None and r.status == "finished" for r in runs)
        assert {r.contract_sha256 for r in runs if r} == {sha256_hex(import_contract_source())}
        contract = store.contract(sha256_hex(import_contract_source()))
        assert contract is not None and json.loads(contract.source)["contract"] == (
            "promptfoo-import"
        )
        assert runs[1] is not None and runs[1].summary["failed_cases"] == 1
        assert runs[1].options["source_sha256"] == sha256_hex(FAILING.read_bytes())
        report = audit_store(store)
    assert report.ok, report


def test_refused_file_writes_nothing(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        with pytest.raises(MalformedPromptfooResult):
            import_promptfoo_result(PROMPTFOO / "discovery" / "out.json", store)
        assert store.runs() == [] and list(store.iter_rows()) == []


def test_invalid_contract_id_writes_nothing(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        with pytest.raises(ValueError, match="contract id 'Not Valid'"):
            import_promptfoo_result(PASSING, store, contract_id="Not Valid")
        assert store.runs() == []


def test_cli_imports_and_names_the_row(tmp_path: Path) -> None:
    target = tmp_path / "gaps.db"
    result = cli("import", "promptfoo", str(FAILING), "--store", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("imported promptfoo equals result (fail, score 0) as row ")
    [row] = stored_rows(target)
    assert row["status"] == "fail" and row["contract_id"] == "promptfoo-import"


def test_cli_contract_and_case_ids(tmp_path: Path) -> None:
    target = tmp_path / "gaps.db"
    result = cli(
        "import", "promptfoo", str(PASSING), "--store", str(target),
        "--contract-id", "nightly-suite", "--case-id", "capital-question",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    [row] = stored_rows(target)
    assert (row["contract_id"], row["case_id"]) == ("nightly-suite", "capital-question")
    assert row["contract_sha256"] == sha256_hex(import_contract_source("nightly-suite"))


@pytest.mark.parametrize(
    "name",
    [
        "discovery/out.json",
        "discovery/out.jsonl",
        "malformed/eval-result-row.json",
        "malformed/test-level-grading-result.json",
        "malformed/component-results-array.json",
    ],
)
def test_cli_refuses_wrappers_with_exit_2_and_one_line(tmp_path: Path, name: str) -> None:
    target = tmp_path / "gaps.db"
    result = cli("import", "promptfoo", str(PROMPTFOO / name), "--store", str(target))
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {PROMPTFOO / name}: refused, nothing imported: ")
    assert not target.exists()  # refused before a store is created


def test_cli_refuses_a_bad_contract_id_before_opening_the_store(tmp_path: Path) -> None:
    target = tmp_path / "gaps.db"
    result = cli("import", "promptfoo", str(PASSING), "--store", str(target), "--contract-id", "X")
    assert result.exit_code == 2 and "contract id 'X' is not valid" in result.stderr
    assert not target.exists()


def test_cli_missing_file_is_exit_2(tmp_path: Path) -> None:
    result = cli("import", "promptfoo", str(tmp_path / "none.json"), "--store", str(tmp_path / "s"))
    assert result.exit_code == 2 and "file not found" in result.stderr


def test_import_without_a_mode_is_still_the_jsonl_import(tmp_path: Path) -> None:
    """`verifier import FILE` keeps meaning the verifier JSONL import."""
    copy = tmp_path / "result.json"
    shutil.copy(PASSING, copy)
    result = cli("import", str(copy), "--store", str(tmp_path / "gaps.db"))
    assert result.exit_code != 0
    assert "refused, nothing imported" in result.stderr and "promptfoo" not in result.stderr
    listed = cli("import", "--help").stdout
    assert "jsonl" in listed and "promptfoo" in listed


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '{"pass": false, "score": 0, "reason": "Fails the rubric (score 0.2)", '
            '"assertion": {"type": "equals", "value": "Paris"}}',
            "reason reads like a model-graded rubric explanation ('rubric'), not a "
            "deterministic assertion's reason",
        ),
        (
            '{"pass": false, "score": 0, "pass": true, "assertion": {"type": "equals"}}',
            "key 'pass' appears twice in one object",
        ),
    ],
)
def test_cli_refuses_a_rubric_like_reason_and_a_duplicate_key_in_one_line(
    tmp_path: Path, body: str, problem: str
) -> None:
    source, target = tmp_path / "result.json", tmp_path / "gaps.db"
    source.write_text(body, encoding="utf-8")
    result = cli("import", "promptfoo", str(source), "--store", str(target))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"error: {source}: refused, nothing imported: {problem}"]
    assert not target.exists()
