"""`verifier export --format promptfoo`: one GradingResult per gap row, errors never passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests._cli import cli as run_cli
from tests.conftest import FIXTURES
from verifier.gaps.sqlite.store import SqliteStore
from verifier.integrations.promptfoo_export import grading_result, grading_results
from verifier.integrations.promptfoo_import import import_promptfoo_result

PROMPTFOO = FIXTURES / "promptfoo"
CONTRACT = PROMPTFOO / "export" / "every-status.yaml"
CASES = PROMPTFOO / "export" / "every-status.cases.jsonl"


def cli(*args: str) -> Result:
    """``verifier ARGS`` in this process, with no API key from the environment."""
    return run_cli(*args, env={"ANTHROPIC_API_KEY": None})


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """A store holding one run of the contract: a pass, a fail, an error and a skip."""
    target = tmp_path / "gaps.db"
    ran = cli("run", str(CONTRACT), "--cases", str(CASES), "--store", str(target),
              "--judges", "replay", "--format", "json")  # fmt: skip
    assert ran.exit_code == 1, ran.output
    return target


def exported(*args: str) -> list[dict[str, Any]]:
    result = cli("export", "--format", "promptfoo", *args)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_every_row_becomes_one_grading_result(store_path: Path) -> None:
    results = exported("--store", str(store_path))
    by_claim = {r["assertion"]["metric"]: r for r in results}
    assert list(by_claim) == ["names_paris", "short", "polite", "after_short"]
    assert [(r["pass"], r["score"]) for r in results] == [
        (True, 1.0),
        (False, 0.0),
        (False, 0.0),
        (False, 0.0),
    ]
    assert by_claim["short"]["reason"] == "output has 4 words, more than the maximum of 2"
    assert by_claim["names_paris"]["assertion"] == {
        "type": "verifier",
        "metric": "names_paris",
        "value": {
            "contract": "every-status",
            "version": 2,
            "claim": "names_paris",
            "kind": "rubric",
        },
    }


def test_error_and_skipped_rows_are_never_passes(store_path: Path) -> None:
    by_claim = {r["assertion"]["metric"]: r for r in exported("--store", str(store_path))}
    error, skipped = by_claim["polite"], by_claim["after_short"]
    assert error["pass"] is False and error["score"] == 0.0
    assert error["reason"] == "error: replay: no recorded verdict for claim polite on case c1"
    assert error["metadata"]["verifier"]["status"] == "error"
    assert skipped["pass"] is False and skipped["reason"].startswith("skipped: waits for short")


def test_results_name_the_row_they_came_from(store_path: Path) -> None:
    results = exported("--store", str(store_path))
    with SqliteStore(store_path) as store:
        rows = list(store.iter_rows())
    assert [r["metadata"]["verifier"]["row_hash"] for r in results] == [r.row_hash for r in rows]
    assert [r["metadata"]["verifier"]["row_id"] for r in results] == [r.row_id for r in rows]


def test_export_of_one_run_to_a_file(store_path: Path, tmp_path: Path) -> None:
    with SqliteStore(store_path) as store:
        imported = import_promptfoo_result(PROMPTFOO / "surfaced" / "equals-fail.json", store)
    out = tmp_path / "graded.jsonl"
    result = cli("export", "--format", "promptfoo", "--store", str(store_path),
                 "--run", imported.run_id, "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"exported 1 promptfoo GradingResult(s) to {out}"
    [line] = out.read_text(encoding="utf-8").splitlines()
    graded = json.loads(line)
    assert (graded["pass"], graded["score"], graded["reason"]) == (
        False,
        0.0,
        'Expected output "Lyon" to equal "Paris"',
    )
    assert graded["assertion"]["value"]["kind"] == "imported"
    assert not out.with_name("graded.jsonl.partial").exists()


def test_unknown_run_is_exit_2(store_path: Path) -> None:
    result = cli("export", "--format", "promptfoo", "--store", str(store_path), "--run", "nope")
    assert result.exit_code == 2 and "no run nope" in result.stderr


def test_a_verdict_without_score_takes_its_status_score() -> None:
    row = {
        "status": "pass",
        "score": None,
        "reason": "ok",
        "claim_id": "c",
        "kind": "rubric",
        "contract_id": "k",
        "contract_version": 1,
        "run_id": "r",
        "case_id": "x",
        "row_id": "r:1:c",
        "row_hash": "0" * 64,
    }
    assert grading_result(row)["score"] == 1.0
    assert grading_result({**row, "status": "error", "reason": ""})["reason"] == "error"


def test_grading_results_streams_in_seq_order(store_path: Path) -> None:
    with SqliteStore(store_path) as store:
        first = next(grading_results(store))
    assert first["assertion"]["metric"] == "names_paris"
