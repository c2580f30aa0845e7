"""`verifier run` with a findings claim on a code-review example, end to end.

The figures are worked out by hand from tests/fixtures/findings: each expected finding
is matched with an output finding of the same dimension and severity, one to one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import FIXTURES
from verifier.gaps.store import open_store

FINDINGS = FIXTURES / "findings"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for path in FINDINGS.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _report(folder: Path, contract: str, cases: str) -> tuple[int, dict[str, Any]]:
    out = folder / "report.json"
    result = verifier(
        "run", contract, "--cases", cases, "--store", "gaps.db", "--format", "json",
        "--out", str(out), cwd=folder,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(out.read_text(encoding="utf-8"))


def _results(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case["results"][0] for case in report["cases"]}


def test_a_json_list_of_findings_is_scored_by_recall_and_precision(folder: Path) -> None:
    code, report = _report(folder, "code-review.yaml", "code-review.cases.jsonl")
    results = _results(report)
    assert code == 1
    # tcr-001: type_annotations and edge_cases found, docstring missed, naming extra:
    # recall 2/3 >= 0.6, precision 2/3 >= 0.5; the score is F1 = 2/3.
    first = results["tcr-001"]
    assert first["status"] == "pass"
    assert first["evidence"]["recall"] == pytest.approx(2 / 3)
    assert first["evidence"]["precision"] == pytest.approx(2 / 3)
    assert first["score"] == pytest.approx(2 / 3, abs=1e-6)
    assert first["evidence"]["missed"] == [{"dimension": "docstring", "severity": "critical"}]
    # tcr-002: nothing expected, one finding said: recall 1 (nothing to miss), precision 0.
    second = results["tcr-002"]
    assert second["status"] == "fail"
    assert (second["evidence"]["recall"], second["evidence"]["precision"]) == (1.0, 0.0)
    assert second["score"] == 0.0
    # tcr-003: its output is text, which `parse: json` cannot read: not checked.
    third = results["tcr-003"]
    assert third["status"] == "error"
    assert third["reasoning"].startswith("not checked: output is text, not a list of findings")
    # The run's figures: micro from 2 matched of 3 expected and 4 given; macro over the
    # cases where each is defined (tcr-002 expected nothing: no recall of its own);
    # tcr-003 could not be checked and is counted apart, not as 0.
    figures = report["findings"]["findings"]
    assert figures["micro"] == {"recall": pytest.approx(2 / 3, abs=1e-6), "precision": 0.5,
                                "f1": pytest.approx(4 / 7, abs=1e-6)}  # fmt: skip
    assert figures["macro"] == {"recall": pytest.approx(2 / 3, abs=1e-6),
                                "precision": pytest.approx(1 / 3, abs=1e-6),
                                "f1": pytest.approx(1 / 3, abs=1e-6)}  # fmt: skip
    assert (figures["cases"], figures["errors"], figures["macro_cases"]["recall"]) == (2, 1, 1)
    assert report["assertion_breakdown"]["findings"] == {
        "passed": 1, "failed": 1, "errors": 1, "skipped": 0, "pass_rate": pytest.approx(1 / 3, abs=1e-6),
    }  # fmt: skip


@pytest.mark.parametrize("cases", ["code-review.suite.json", "code-review.suite.yaml"])
def test_numbered_findings_in_the_suite_document_are_scored(folder: Path, cases: str) -> None:
    code, report = _report(folder, "code-review-numbered.yaml", cases)
    results = _results(report)
    assert code == 0
    # tcr-001: lines 2 and 3 match (type annotations, edge cases), the naming line does
    # not: recall 2/3 >= 0.6 (the score: min_recall alone), precision 2/3.
    first = results["tcr-001"]
    assert first["status"] == "pass"
    assert first["score"] == pytest.approx(2 / 3, abs=1e-6)
    assert first["evidence"]["unexpected"] == [
        {"dimension": "naming", "severity": "minor", "text": "calculate_ is redundant", "line": 4}
    ]
    # tcr-002: no numbered line, nothing expected: recall and precision 1.
    assert results["tcr-002"]["status"] == "pass"
    assert results["tcr-002"]["evidence"]["precision"] == 1.0
    with open_store(str(folder / "gaps.db")) as store:
        record = store.run(report["run_id"])
        assert record is not None
        assert record.options["suite"] == {"name": "python-code-review", "version": "1.0.0"}


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (
            "    min_recall: 0.6\n    min_precison: 0.5\n",
            "code-review.yaml:9:5: claim 'findings': unknown key 'min_precison' "
            "(did you mean 'min_precision'?)",
        ),
        (
            "    min_recall: 60\n",
            "code-review.yaml:8:17: claim 'findings': min_recall is on a 0-1 scale; "
            "60 is above 1 — did you mean 0.6?",
        ),
        (
            "    weight: 1\n",
            "code-review.yaml:4:5: claim 'findings': a findings claim needs "
            "min_recall, min_precision or both",
        ),
        (
            "    parse: numbered\n    match_on: [dimension, specific]\n    min_recall: 1\n",
            "code-review.yaml:4:5: claim 'findings': numbered lines give only dimension and "
            "severity; match_on names 'specific'",
        ),
    ],
)
def test_a_bad_findings_claim_is_one_line_naming_file_and_line(
    tmp_path: Path, claim: str, message: str
) -> None:
    (tmp_path / "code-review.yaml").write_text(
        "contract: review\nversion: 1\nclaims:\n"
        "  - id: findings\n    compare: findings\n    field: output\n"
        "    expected: expected_findings\n" + claim,
        encoding="utf-8",
    )
    result = verifier("check", "code-review.yaml", cwd=tmp_path)
    assert_no_traceback(result)
    assert result.returncode == 2
    assert result.stdout.splitlines() == [message]
    assert result.stderr == "1 problem found\n"


def test_a_redacted_expected_list_keeps_its_findings_out_of_the_rows(folder: Path) -> None:
    text = (folder / "code-review.yaml").read_text(encoding="utf-8")
    (folder / "code-review.yaml").write_text(
        text.replace("claims:\n", "record:\n  redact: [expected_findings]\nclaims:\n"),
        encoding="utf-8",
    )
    _report(folder, "code-review.yaml", "code-review.cases.jsonl")
    with open_store(str(folder / "gaps.db")) as store:
        bodies = [json.loads(row.body) for row in store.iter_rows()]
    first = [body for body in bodies if body["case_id"] == "tcr-001"]
    assert [body["evidence"] for body in first] == [{"redacted": ["expected_findings"]}]
    # The missed finding is the expected list's; the extra one is the output's own.
    assert first[0]["reason"].endswith(
        "missed: [redacted] ([redacted]); unexpected: naming (minor)"
    )
