"""Case text the databases find awkward reaches both stores alike, or is refused alike.

PostgreSQL text cannot hold NUL (U+0000). A case id is stored as a text column, so an
id holding one is refused as that case's error; NUL anywhere else in a case (its
output, hence the reasons, evidence and content quoting it) is stored in JSON, which
escapes it, and reads back identical on both stores.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import assert_no_traceback, verifier
from tests.gaps._backends import Backend
from verifier._internal.canonical import sha256_hex
from verifier.analyses.audit import audit_store

CONTRACT = """\
contract: nul-text
version: 1
claims:
  - {id: says_ok, rubric: contains, field: output, values: [ok]}
"""


def run_with_nul(tmp_path: Path, target: str) -> tuple[int, str, Path]:
    contract = tmp_path / "contract.yaml"
    contract.write_text(CONTRACT, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    lines = [
        {"id": "before", "output": "ok"},
        {"id": "nul\u0000id", "output": "ok"},
        {"id": "nul-output", "output": "not\u0000fine"},
        {"id": "after", "output": "ok"},
    ]
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "report.json"
    result = verifier(
        "run", str(contract), "--cases", str(cases), "--store", target,
        "--format", "json", "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    return result.returncode, result.stderr, out


def test_a_nul_in_a_case_id_fails_that_case_and_the_run_goes_on(
    store_backend: Backend, tmp_path: Path
) -> None:
    code, stderr, out = run_with_nul(tmp_path, store_backend.target)
    assert code == 1, stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    by_id = {case["id"]: case for case in report["cases"]}
    assert sorted(by_id) == ["after", "before", "line-2", "nul-output"]
    (refused,) = by_id["line-2"]["results"]
    assert refused["status"] == "error"
    assert refused["reasoning"] == (
        'line 2: case "id" contains the NUL character (U+0000), which ids cannot hold'
    )
    stored = store_backend.query("SELECT case_id, status FROM rows ORDER BY seq")
    assert stored == [
        ("before", "pass"),
        ("line-2", "error"),
        ("nul-output", "fail"),
        ("after", "pass"),
    ]
    with store_backend.open() as store:
        assert audit_store(store).ok


def test_nul_in_case_text_reads_back_identical_from_both_stores(
    store_backend: Backend, tmp_path: Path
) -> None:
    code, stderr, _ = run_with_nul(tmp_path, store_backend.target)
    assert code == 1, stderr
    with store_backend.open() as store:
        (row,) = [r for r in store.iter_rows() if r.case_id == "nul-output"]
        body = json.loads(row.body)
        content = store.content(body["content_sha256"])
    # The same bytes, so the same hash, on SQLite and PostgreSQL: JSON escapes NUL.
    assert content == '{"case":{"id":"nul-output","output":"not\\u0000fine"}}'
    assert sha256_hex(content) == body["content_sha256"]
    assert json.loads(content)["case"]["output"] == "not\u0000fine"
