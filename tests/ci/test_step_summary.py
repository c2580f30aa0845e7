"""The step summary: appended to $GITHUB_STEP_SUMMARY whatever the format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

CONTRACT = EXAMPLES / "data-extraction.yaml"
CASES = EXAMPLES / "data-extraction.cases.jsonl"


def _run(tmp: Path, summary: Path, *extra: str):  # type: ignore[no-untyped-def]
    return verifier(
        "run",
        str(CONTRACT),
        "--cases",
        str(CASES),
        *extra,
        cwd=tmp,
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )


def test_summary_is_appended_after_earlier_steps_whatever_the_format(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("# Build\n\nearlier step\n")

    result = _run(tmp_path, summary, "--format", "junit")

    assert result.returncode == 1, result.stderr
    ET.fromstring(result.stdout)  # the report itself is untouched
    text = summary.read_text()
    assert text.startswith(
        "# Build\n\nearlier step\n\n## ❌ `org-extraction v1`: 5 of 7 cases failed"
    )
    assert "| spans_grounded | 57.1% | 4 | 2 | 1 | 0 |" in text
    assert "### Failing cases" in text and "`vela-2026-11-03`" in text
    run_id = result.stderr.split("run ", 1)[1].split(":", 1)[0]
    assert f"run `{run_id}`" in text


def test_two_runs_append_two_summaries(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    for _ in range(2):
        assert _run(tmp_path, summary, "--format", "json", "--out", "r.json").returncode == 1
    assert summary.read_text().count("## ❌ `org-extraction v1`") == 2


def test_unwritable_summary_is_an_error_of_verifier_after_the_report(tmp_path: Path) -> None:
    summary = tmp_path / "a-directory"
    summary.mkdir()

    result = _run(tmp_path, summary, "--format", "json")

    assert result.returncode == 2
    assert json.loads(result.stdout)["total_cases"] == 7
    assert result.stderr.endswith(
        f"error: {summary}: cannot write the step summary: Is a directory\n"
    )
    assert_no_traceback(result)


def test_no_summary_without_the_variable(tmp_path: Path) -> None:
    result = verifier("run", str(CONTRACT), "--cases", str(CASES), cwd=tmp_path)
    assert result.returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".verifier"]


def test_summary_with_a_baseline_shows_the_changes(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    assert _run(tmp_path, summary, "--format", "json", "--out", "main.json").returncode == 1
    summary.write_text("")

    result = _run(tmp_path, summary, "--against", "main.json")

    assert result.returncode == 1, result.stderr
    text = summary.read_text()
    assert "### Changes against the baseline" in text
    assert "No result changed between passing and failing." in text
