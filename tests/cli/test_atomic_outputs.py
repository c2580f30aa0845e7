"""Reports, comments and pages appear whole or not at all, with the mode the user expects."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

CONTRACT = EXAMPLES / "data-extraction.yaml"
MAIN = EXAMPLES / "data-extraction.cases.jsonl"
CANDIDATE = EXAMPLES / "data-extraction.candidate.cases.jsonl"


def run_json(tmp_path: Path, cases: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    store = str(tmp_path / "gaps.db")
    return verifier(
        "run", str(CONTRACT), "--cases", str(cases), "--store", store, *extra, cwd=tmp_path
    )


def test_the_report_may_replace_the_baseline_it_is_compared_with(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    first = run_json(tmp_path, MAIN, "--format", "json", "--out", str(report))
    assert first.returncode == 1, first.stderr
    before = json.loads(report.read_text(encoding="utf-8"))["run_id"]
    second = run_json(
        tmp_path, CANDIDATE, "--format", "json", "--out", str(report),
        "--pr-comment", str(tmp_path / "comment.md"), "--against", str(report),
    )  # fmt: skip
    assert second.returncode == 1, second.stderr
    after = json.loads(report.read_text(encoding="utf-8"))["run_id"]
    assert after != before
    assert f"baseline run `{before}`" in (tmp_path / "comment.md").read_text(encoding="utf-8")


def test_a_run_stopped_by_a_usage_error_leaves_earlier_files_as_they_were(tmp_path: Path) -> None:
    report, comment = tmp_path / "report.json", tmp_path / "comment.md"
    report.write_text('{"earlier": true}\n', encoding="utf-8")
    comment.write_text("earlier comment\n", encoding="utf-8")
    result = run_json(
        tmp_path, CANDIDATE, "--format", "json", "--out", str(report),
        "--pr-comment", str(comment), "--against", "no-such-run",
    )  # fmt: skip
    assert result.returncode == 2 and "no-such-run" in result.stderr, result.stderr
    assert_no_traceback(result)
    assert report.read_text(encoding="utf-8") == '{"earlier": true}\n'
    assert comment.read_text(encoding="utf-8") == "earlier comment\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []


@pytest.mark.e2e
def test_written_files_follow_the_umask_or_keep_their_mode(tmp_path: Path) -> None:
    assert run_json(tmp_path, MAIN).returncode == 1

    def report_with_umask(mask: int, page: Path) -> int:
        done = subprocess.run(
            [sys.executable, "-m", "verifier", "report", "--store", str(tmp_path / "gaps.db"),
             "--html", str(page)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
            preexec_fn=lambda: os.umask(mask),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return stat.S_IMODE(page.stat().st_mode)

    assert report_with_umask(0o077, tmp_path / "private.html") == 0o600
    assert report_with_umask(0o022, tmp_path / "shared.html") == 0o644
    kept = tmp_path / "kept.html"
    kept.write_text("", encoding="utf-8")
    kept.chmod(0o640)
    assert report_with_umask(0o022, kept) == 0o640
