"""`verifier run --cases` with a suite document: read like JSONL, refused in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier, verifier_process
from tests.conftest import FIXTURES

FINDINGS = FIXTURES / "findings"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for path in FINDINGS.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


@pytest.mark.e2e
def test_a_yaml_suite_on_standard_input_is_run(folder: Path) -> None:
    text = (folder / "code-review.suite.yaml").read_text(encoding="utf-8")
    result = verifier_process(
        "run", "code-review-numbered.yaml", "--cases", "-", "--store", "gaps.db",
        cwd=folder, input=text,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "2/2 cases passed" in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{\n  "test_suite": "review",\n  "cases": [\n    {"id": "a"}\n  ]\n  "version": 1\n}\n',
            "line 6: invalid JSON: ",
        ),
        (
            "test_suite: review\nversion: 1\ncases:\n  id: a\n",
            "line 4: cases is an object, not a list",
        ),
        (
            '{\n  "test_suite": "review",\n  "tests": []\n}\n',
            "unknown key 'tests' (a suite document has test_suite, version, description and cases)",
        ),
    ],
)
def test_a_bad_suite_is_one_line_and_nothing_is_stored(
    folder: Path, text: str, message: str
) -> None:
    (folder / "suite.json").write_text(text, encoding="utf-8")
    result = verifier(
        "run", "code-review-numbered.yaml", "--cases", "suite.json", "--store", "gaps.db",
        cwd=folder,
    )  # fmt: skip
    assert_no_traceback(result)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: suite.json: {message}")
    assert len(result.stderr.splitlines()) == 1
    assert not (folder / "gaps.db").exists()
