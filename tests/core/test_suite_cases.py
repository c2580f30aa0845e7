"""Suite documents read as cases: by the one reader every surface uses, and by a run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from verifier import run_contract
from verifier.cases import check_cases_file, read_cases
from verifier.compare.case_identity import case_identity
from verifier.contract.load import load_contract
from verifier.errors import CasesError
from verifier.gaps.store import open_store

FINDINGS = FIXTURES / "findings"
SUITE = {
    "test_suite": "review",
    "version": "2.1",
    "cases": [{"id": "a", "output": "x"}, ["not", "a", "case"], {"id": "a"}, {"id": "c"}],
}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_json_suite_is_read_case_by_case_numbered_by_position(tmp_path: Path) -> None:
    path = _write(tmp_path, "suite.json", json.dumps(SUITE, indent=2))
    lines = list(read_cases(path))
    assert [(c.line, c.case_id, c.error) for c in lines] == [
        (1, "a", None),
        (2, "line-2", "case 2: a case must be a JSON object, not an array"),
        (3, "a@line-3", "case 3: duplicate case id 'a'"),
        (4, "c", None),
    ]
    assert lines[0].case == {"id": "a", "output": "x"}
    # A resumed run passes over the cases up to a position, as over lines.
    assert [c.case_id for c in read_cases(path, after=3)] == ["c"]


def test_a_yaml_suite_names_a_bad_case_by_its_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "suite.yaml",
        "test_suite: review\ncases:\n  - id: a\n  - output: no id\n  - [1, 2]\n",
    )
    errors = [c.error for c in read_cases(path)]
    assert errors[0] is None
    assert errors[1] is not None and errors[1].startswith('case 2 (line 4): case has no "id"')
    assert errors[2] == "case 3 (line 5): a case must be a JSON object, not an array"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("s.json", '{"test_suite": "s", "cases": []}', "no cases (the suite document's cases "
         "list is empty)"),
        ("s.yaml", "cases:\n  - 1\n  - [2]\n", "case 1 (line 2): a case must be a JSON object, "
         "not an integer"),
        ("s.yaml", "cases: [{id: a}]\nowner: me\n", "line 2: unknown key 'owner' (a suite "
         "document has test_suite, version, description and cases)"),
    ],
)  # fmt: skip
def test_a_suite_without_a_usable_case_is_refused_naming_the_file(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(CasesError) as raised:
        check_cases_file(path)
    assert str(raised.value) == f"{path}: {message}"


def test_the_library_runs_a_suite_and_records_its_name_and_version(tmp_path: Path) -> None:
    for path in FINDINGS.iterdir():
        shutil.copy(path, tmp_path / path.name)
    result = run_contract(
        tmp_path / "code-review-numbered.yaml",
        tmp_path / "code-review.suite.yaml",
        store=tmp_path / "gaps.db",
    )
    assert [c.case_id for c in result.cases] == ["tcr-001", "tcr-002"]
    assert result.summary.passed_cases == 2
    with open_store(str(tmp_path / "gaps.db")) as store:
        record = store.run(result.run_id)
        assert record is not None
        assert record.options["suite"] == {"name": "python-code-review", "version": "1.0.0"}


def test_a_jsonl_run_records_no_suite(tmp_path: Path) -> None:
    for path in FINDINGS.iterdir():
        shutil.copy(path, tmp_path / path.name)
    result = run_contract(
        tmp_path / "code-review.yaml", tmp_path / "code-review.cases.jsonl", store=tmp_path / "g.db"
    )
    with open_store(str(tmp_path / "g.db")) as store:
        record = store.run(result.run_id)
        assert record is not None
        assert "suite" not in record.options


def test_a_suites_identity_leaves_out_the_outputs_as_a_jsonl_files_does(tmp_path: Path) -> None:
    contract = load_contract(FINDINGS / "code-review-numbered.yaml").contract
    suite = json.loads((FINDINGS / "code-review.suite.json").read_text(encoding="utf-8"))
    lines = "".join(json.dumps(case) + "\n" for case in suite["cases"])
    as_jsonl = case_identity(_write(tmp_path, "cases.jsonl", lines), contract)
    assert case_identity(FINDINGS / "code-review.suite.json", contract) == as_jsonl
    for case in suite["cases"]:
        case["output"] = "another output of the same case"
    other = case_identity(_write(tmp_path, "other.json", json.dumps(suite)), contract)
    assert other == as_jsonl and other.cases == 2


def test_a_line_cut_to_a_brace_stays_a_line_for_the_reader_and_is_refused_by_the_check(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "cases.jsonl", '{\n{"id": "b"}\n')
    # Its start looks like a JSON document, but it is none: the reader keeps lines.
    assert [(c.line, c.case_id, c.error is None) for c in read_cases(path)] == [
        (1, "line-1", False),
        (2, "b", True),
    ]
    # A run asks the check first, which says why the document cannot be read.
    with pytest.raises(CasesError) as raised:
        check_cases_file(path)
    assert str(raised.value).startswith(f"{path}: line 2: invalid JSON: ")
