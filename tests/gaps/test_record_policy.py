"""The `record:` block and `--record-content` decide what the store keeps of each case:
its content, only its hash, or neither; redacted fields leave no trace in any row, and
long texts are cut with the hash of the whole kept (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._backends import Backend
from verifier._internal.canonical import canonical_json
from verifier.gaps.content import content_sha256
from verifier.gaps.store import open_store

NAME = "account-research"
CASES = EXAMPLES / f"{NAME}.cases.jsonl"
CASE_LIST = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]


def contract_with(tmp_path: Path, record: str) -> Path:
    """The example contract (and its recorded verdicts) with a `record:` block."""
    shutil.copy(EXAMPLES / f"{NAME}.recordings.jsonl", tmp_path / f"{NAME}.recordings.jsonl")
    path = tmp_path / f"{NAME}.yaml"
    source = (EXAMPLES / f"{NAME}.yaml").read_text(encoding="utf-8")
    path.write_text(source + "\nrecord:\n" + record, encoding="utf-8")
    return path


def run(tmp_path: Path, contract: Path, store: str, *extra: str) -> str:
    result = verifier(
        "run", str(contract), "--cases", str(CASES), "--store", store, *extra, cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr  # the example has failing cases
    assert "Traceback" not in result.stderr
    with open_store(store) as gap_store:
        last = gap_store.last_run()
        assert last is not None
        return last.run_id


def stored(store: str, run_id: str) -> tuple[list[dict], list[tuple[str, str]]]:
    with open_store(store) as gap_store:
        rows = [json.loads(row.body) for row in gap_store.iter_rows(run_id)]
        return rows, list(gap_store.iter_contents())


def full_hash(case: dict) -> str:
    return content_sha256(canonical_json({"case": case}))


def run_in_mode(tmp_path: Path, target: str, mode: str) -> tuple[list[dict], list[str]]:
    """The rows of a run of a contract recording in ``mode``, and every content's hash."""
    run_id = run(tmp_path, contract_with(tmp_path, f"  content: {mode}\n"), target)
    rows, contents = stored(target, run_id)
    with open_store(target) as gap_store:
        record = gap_store.run(run_id)
        assert record is not None
        assert record.options["record"] == {"content": mode, "redact": [], "max_bytes": None}
    assert rows
    return rows, [sha for sha, _ in contents]


BY_CASE = {c["id"]: c for c in CASE_LIST}


def test_full_stores_every_cases_content_under_the_hash_its_rows_carry(
    tmp_path: Path, store_backend: Backend
) -> None:
    rows, contents = run_in_mode(tmp_path, store_backend.target, "full")
    assert sorted(contents) == sorted(full_hash(c) for c in CASE_LIST)
    assert all(r["content_sha256"] == full_hash(BY_CASE[r["case_id"]]) for r in rows)


def test_hashes_puts_the_hash_of_the_full_content_in_rows_and_stores_no_content(
    tmp_path: Path, store_backend: Backend
) -> None:
    rows, contents = run_in_mode(tmp_path, store_backend.target, "hashes")
    assert contents == []
    assert all(r["content_sha256"] == full_hash(BY_CASE[r["case_id"]]) for r in rows)


def test_none_records_neither_a_hash_nor_a_content(tmp_path: Path, store_backend: Backend) -> None:
    rows, contents = run_in_mode(tmp_path, store_backend.target, "none")
    assert contents == []
    assert all(r["content_sha256"] is None for r in rows)


@pytest.mark.parametrize(("written", "flag"), [("none", "full"), ("full", "hashes")])
def test_record_content_option_overrides_the_contracts_mode(
    tmp_path: Path, written: str, flag: str
) -> None:
    store = str(tmp_path / "gaps.db")
    contract = contract_with(tmp_path, f"  content: {written}\n  max_bytes: 64\n")
    run_id = run(tmp_path, contract, store, "--record-content", flag)
    rows, contents = stored(store, run_id)
    with open_store(store) as gap_store:
        record = gap_store.run(run_id)
        assert record is not None
        # The contract's max_bytes still applies; only the mode is overridden.
        assert record.options["record"] == {"content": flag, "redact": [], "max_bytes": 64}
    if flag == "full":
        assert len(contents) == len(CASE_LIST)
        assert {r["content_sha256"] for r in rows} == {sha for sha, _ in contents}
    else:
        assert contents == [] and all(r["content_sha256"] for r in rows)


def test_max_bytes_cuts_long_texts_and_keeps_the_hash_and_length_of_the_whole(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "gaps.db")
    run_id = run(tmp_path, contract_with(tmp_path, "  max_bytes: 40\n"), store)
    _, contents = stored(store, run_id)
    assert len(contents) == len(CASE_LIST)
    for sha, body in contents:
        assert content_sha256(body) == sha
        envelope = json.loads(body)
        whole = BY_CASE[envelope["case"]["id"]]["output"]
        kept = envelope["case"]["output"]
        assert kept.endswith("…[cut]") and whole.startswith(kept.removesuffix("…[cut]"))
        assert len(kept.removesuffix("…[cut]").encode()) <= 40
        assert envelope["withheld"]["output"] == {
            "why": "cut",
            "sha256": content_sha256(canonical_json(whole)),
            "bytes": len(whole.encode("utf-8")),
        }
