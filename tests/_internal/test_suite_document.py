"""Telling a suite document from JSONL by its start, and reading one whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier._internal.suite_document import SuiteProblem, cases_form, read_suite


def _file(tmp_path: Path, text: str, name: str = "cases.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ('{"id": "a"}\n{"id": "b"}\n', "jsonl"),
        # A case whose first key is `version`, whole on its line, is a JSONL line.
        ('{"version": 2, "id": "a"}\n', "jsonl"),
        # A JSONL line cut short stays a JSONL line (an error row, as before).
        ('{"id": "a", oops\n{"id": "b"}\n', "jsonl"),
        ("- id: a\n", "jsonl"),
        ('\n{\n  "test_suite": "s",\n  "cases": []\n}\n', "json"),
        ('{"test_suite": "s",\n "cases": []}\n', "json"),
        ('{"test_suite": "s", "version": "1", "cases": [{"id": "a"}]}\n', "json"),
        ("# a suite\ntest_suite: s\ncases: []\n", "yaml"),
        ("---\ncases: []\n", "yaml"),
        ("\ufefftest_suite: s\n", "yaml"),
    ],
)
def test_the_form_is_told_from_the_start(tmp_path: Path, text: str, form: str) -> None:
    assert cases_form(_file(tmp_path, text)) == form


def test_a_yaml_name_is_a_yaml_document(tmp_path: Path) -> None:
    assert cases_form(_file(tmp_path, '{"id": "a"}\n', "cases.yml")) == "yaml"


def test_a_yaml_document_gives_each_case_its_line(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "test_suite: review\nversion: 1.0.0\ncases:\n  - id: a\n    output: x\n  - id: b\n",
        "suite.yaml",
    )
    suite = read_suite(path, "yaml")
    assert (suite.name, suite.version) == ("review", "1.0.0")
    assert suite.cases == [{"id": "a", "output": "x"}, {"id": "b"}]
    assert suite.lines == [4, 6]
    assert suite.label(1) == "case 2 (line 6)"


def test_a_number_as_version_is_kept_as_text(tmp_path: Path) -> None:
    suite = read_suite(_file(tmp_path, '{"version": 3, "cases": []}'), "json")
    assert (suite.name, suite.version, suite.lines) == (None, "3", None)


@pytest.mark.parametrize(
    ("text", "form", "problem"),
    [
        ("test_suite: s\ncase: []\n", "yaml", "line 2: unknown key 'case' (a suite document "
         "has test_suite, version, description and cases)"),
        ("test_suite: s\n", "yaml", "a suite document needs `cases`: a list of case objects"),
        ("test_suite: s\ncases:\n  id: a\n", "yaml", "line 3: cases is an object, not a list"),
        ("test_suite: [s]\ncases: []\n", "yaml", "line 1: test_suite is an array, not a name"),
        ("version: true\ncases: []\n", "yaml", "line 1: version is a boolean, not text or a number"),
        ("cases: []\ncases: []\n", "yaml", "line 2: duplicate key 'cases'"),
        ("- a\n", "yaml", "a suite document is a mapping with `cases`, not an array"),
        ('{\n  "cases": [\n    {"id": "a"},\n  ]\n}\n', "json", "line 3: invalid JSON: trailing comma"),
        ('{"cases": [], "cases": []}', "json", "key 'cases' appears twice in one object"),
    ],
)  # fmt: skip
def test_a_bad_document_says_where(tmp_path: Path, text: str, form: str, problem: str) -> None:
    with pytest.raises(SuiteProblem) as raised:
        read_suite(_file(tmp_path, text), form)  # type: ignore[arg-type]
    assert str(raised.value).startswith(problem)
