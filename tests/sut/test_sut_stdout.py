"""A Python system under test that prints never corrupts the report on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier

pytestmark = pytest.mark.e2e

CONTRACT = """\
contract: chatty
version: 1
llm_fields: [output]
sut:
  python: chatty:answer
claims:
  - id: answered
    rubric: regex
    field: output
    pattern: '^answer to '
"""
MODULE = """\
import sys


def answer(question):
    # One write per message: the two cases run on threads at once, and print
    # with several arguments writes them piecewise, so they could interleave.
    print(f"DEBUG: got {question}")
    sys.stdout.write("more debug without a newline")
    return f"answer to {question}"
"""


def test_prints_of_a_python_system_go_to_stderr(tmp_path: Path) -> None:
    (tmp_path / "chatty.yaml").write_text(CONTRACT, encoding="utf-8")
    (tmp_path / "chatty.py").write_text(MODULE, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "input": "x"}\n{"id": "b", "input": "y"}\n', encoding="utf-8")
    for fmt in ("json", "junit"):
        result = verifier(
            "run", str(tmp_path / "chatty.yaml"), "--cases", str(cases),
            "--store", str(tmp_path / "gaps.db"), "--format", fmt, cwd=tmp_path,
            own_process=True,  # the guard redirects file descriptor 1 of the process
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert_no_traceback(result)
        assert "DEBUG: got x" in result.stderr and "DEBUG" not in result.stdout
        if fmt == "json":
            assert json.loads(result.stdout)["passed_cases"] == 2
        else:
            assert result.stdout.lstrip().startswith("<?xml")
