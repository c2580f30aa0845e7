"""The content record: every case's content stored once under its SHA-256, carried by
its rows, exported and imported with its hash verified (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import orjson
import pytest

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._backends import Backend
from verifier.gaps.content import (
    FULL,
    RecordPolicy,
    build_content,
    content_hash_of,
    content_sha256,
    recorded_policy,
)
from verifier.gaps.store import open_store
from verifier.transfer.export import export_jsonl
from verifier.transfer.importer import ExportRefused, import_jsonl

CONTRACT = EXAMPLES / "account-research.yaml"
CASES = EXAMPLES / "account-research.cases.jsonl"


def run_example(store: str, cwd: Path) -> None:
    run = verifier("run", str(CONTRACT), "--cases", str(CASES), "--store", store, cwd=cwd)
    assert run.returncode == 1, run.stderr


def test_every_row_carries_the_hash_of_its_cases_content_as_stored(
    tmp_path: Path, store_backend: Backend
) -> None:
    store_target = store_backend.target
    run_example(store_target, tmp_path)
    cases = {c["id"]: c for c in map(json.loads, CASES.read_text().splitlines())}
    with open_store(store_target) as store:
        rows = list(store.iter_rows())
        assert rows
        for row in rows:
            sha = json.loads(row.body)["content_sha256"]
            assert content_hash_of(row.body) == sha
            stored = store.content(sha)
            assert stored is not None and content_sha256(stored) == sha
            # The content is the case exactly as its claims read it.
            assert json.loads(stored) == {"case": cases[row.case_id]}


def test_identical_content_across_runs_is_stored_once(tmp_path: Path) -> None:
    db = tmp_path / "gaps.db"
    run_example(str(db), tmp_path)
    run_example(str(db), tmp_path)
    conn = sqlite3.connect(db)
    (contents,) = conn.execute("SELECT COUNT(*) FROM contents").fetchone()
    (runs,) = conn.execute("SELECT COUNT(*) FROM runs").fetchone()
    assert runs == 2 and contents == len(CASES.read_text().splitlines())


def test_content_round_trips_through_export_and_import(
    tmp_path: Path, store_backend: Backend
) -> None:
    store_target = store_backend.target
    source = tmp_path / "source.db"
    run_example(str(source), tmp_path)
    export = tmp_path / "export.jsonl"
    with open_store(str(source)) as store, export.open("w") as out:
        summary = export_jsonl(store, out)
    assert summary.contents == len(CASES.read_text().splitlines())
    with open_store(store_target) as target:
        import_jsonl(export, target)
        with open_store(str(source)) as store:
            for row in store.iter_rows():
                sha = content_hash_of(row.body)
                assert sha is not None and target.content(sha) == store.content(sha)


def test_an_export_whose_content_was_edited_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    run_example(str(source), tmp_path)
    export = tmp_path / "export.jsonl"
    with open_store(str(source)) as store, export.open("w") as out:
        export_jsonl(store, out)
    lines = export.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "gap-export.content" in line)
    content = orjson.loads(lines[at])
    content["body"] = content["body"].replace("renewal", "removal")
    assert content["body"] != orjson.loads(lines[at])["body"]
    lines[at] = orjson.dumps(content).decode()
    export.write_text("\n".join(lines) + "\n")
    with open_store(str(tmp_path / "target.db")) as target, pytest.raises(ExportRefused) as refused:
        import_jsonl(export, target)
    assert refused.value.line == at + 1 and "was edited" in refused.value.reason


def test_a_policy_of_hashes_keeps_the_hash_of_the_full_content_and_stores_nothing() -> None:
    case = {"id": "a", "input": "secret input", "output": "text"}
    full = build_content(case)
    hashed = build_content(case, RecordPolicy(content="hashes"))
    assert full is not None and hashed is not None
    assert hashed == (full[0], b"") and content_sha256(full[1]) == full[0]
    assert build_content(case, RecordPolicy(content="none")) is None


def test_a_redacted_field_is_stored_as_its_hash_and_no_trace_of_its_value() -> None:
    case = {"id": "a", "input": {"email": "ann@example.com", "q": "hi"}, "output": "x" * 50}
    made = build_content(case, RecordPolicy(redact=("input.email",), max_bytes=10))
    assert made is not None
    sha, body = made
    assert content_sha256(body) == sha
    assert b"ann@example.com" not in body
    record = orjson.loads(body)
    assert record["case"]["input"] == {"email": "[redacted]", "q": "hi"}
    assert record["withheld"]["input.email"] == {
        "why": "redacted",
        "sha256": content_sha256(b'"ann@example.com"'),
        "bytes": len(b'"ann@example.com"'),
    }
    # The long output is cut, its whole kept as a hash and a length.
    assert record["case"]["output"] == "x" * 10 + "…[cut]"
    assert record["withheld"]["output"]["why"] == "cut"
    assert record["withheld"]["output"]["bytes"] == 50
    # The case handed in is not changed.
    assert case["input"]["email"] == "ann@example.com"


def test_content_hash_of_reads_the_rows_own_key_not_one_inside_its_evidence() -> None:
    from verifier._internal.canonical import canonical_json

    own, inner = "a" * 64, "b" * 64
    body = canonical_json(
        {"case_id": "x", "content_sha256": own, "evidence": {"content_sha256": inner}}
    ).decode()
    assert content_hash_of(body) == own
    # A row from before the content record has no key of its own.
    legacy = canonical_json({"case_id": "x", "evidence": {"content_sha256": inner}}).decode()
    assert content_hash_of(legacy) is None
    none = canonical_json({"case_id": "x", "content_sha256": None, "evidence": {}}).decode()
    assert content_hash_of(none) is None


def test_a_runs_recorded_policy_is_read_back_whole() -> None:
    policy = RecordPolicy(content="full", redact=("input.email",), max_bytes=64)
    assert recorded_policy({"record": policy.as_record()}) == policy
    assert not recorded_policy({"record": policy.as_record()}).keeps_replies
    assert not recorded_policy({"record": {"content": "none"}}).keeps_replies
    # A run from before the record policy kept everything.
    assert recorded_policy({}) == FULL
    assert recorded_policy(None).keeps_replies
