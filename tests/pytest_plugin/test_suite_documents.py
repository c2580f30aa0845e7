"""The pytest plugin reads a suite document as it reads JSONL: the one cases reader."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

pytest_plugins = ["pytester"]

FINDINGS = FIXTURES / "findings"


@pytest.fixture
def review(pytester: pytest.Pytester) -> Path:
    """The numbered code-review contract with its cases as a YAML suite document."""
    contracts = pytester.mkdir("contracts")
    shutil.copy(FINDINGS / "code-review-numbered.yaml", contracts / "review.yaml")
    shutil.copy(FINDINGS / "code-review.suite.yaml", contracts / "review.suite.yaml")
    pytester.makeini(
        "[pytest]\nverifier_paths = contracts\n"
        "verifier_cases =\n    contracts/review.yaml=contracts/review.suite.yaml\n"
    )
    return contracts


def test_each_case_of_a_suite_document_is_an_item(pytester: pytest.Pytester, review: Path) -> None:
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*review.yaml::python-code-review-numbered[[]tcr-001[]] PASSED*",
            "*review.yaml::python-code-review-numbered[[]tcr-002[]] PASSED*",
        ]
    )


def test_a_bad_suite_document_is_a_collection_error_in_one_line(
    pytester: pytest.Pytester, review: Path
) -> None:
    (review / "review.suite.yaml").write_text("test_suite: s\ncases: {}\n", encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*review.suite.yaml: line 2: cases is an object, not a list"])
