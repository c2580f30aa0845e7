"""A full disk or an unwritable folder: one line naming the file, exit 2, rows kept."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

CONTRACT = EXAMPLES / "data-extraction.yaml"
CASES = EXAMPLES / "data-extraction.cases.jsonl"
FULL = "no space left: the disk is full"

pytestmark = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")


def _run(tmp_path: Path, *extra: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    store = str(tmp_path / "gaps.db")
    return verifier(
        "run", str(CONTRACT), "--cases", str(CASES), "--store", store, *extra,
        cwd=tmp_path, env=env,
    )  # fmt: skip


def _rows(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        count: int = conn.execute("SELECT count(*) FROM rows").fetchone()[0]
    return count


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert_no_traceback(result)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.parametrize("fmt", ["json", "markdown", "junit", "console"])
def test_a_report_on_a_full_disk_is_one_line_and_exit_two_with_the_rows_kept(
    tmp_path: Path, fmt: str
) -> None:
    result = _run(tmp_path, "--format", fmt, "--out", "/dev/full")

    line = _one_error_line(result)
    assert line == f"error: /dev/full: cannot write the report: {FULL}"
    assert _rows(tmp_path / "gaps.db") == 70  # 7 cases x 10 claims, committed
    assert Path("/dev/full").is_char_device()  # written in place, never replaced


@pytest.mark.e2e
def test_a_report_on_standard_output_on_a_full_disk_is_one_line_and_exit_two(
    tmp_path: Path,
) -> None:
    store = str(tmp_path / "gaps.db")
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "verifier", "run", str(CONTRACT), "--cases", str(CASES),
             "--store", store, "--format", "json"],
            cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: standard output: cannot write: {FULL}"
    )
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert _rows(tmp_path / "gaps.db") == 70


def test_a_pr_comment_and_a_step_summary_on_a_full_disk_are_errors_of_verifier(
    tmp_path: Path,
) -> None:
    comment = _run(tmp_path, "--pr-comment", "/dev/full")
    assert _one_error_line(comment) == f"error: /dev/full: cannot write the PR comment: {FULL}"

    report = tmp_path / "r.json"
    summary = _run(
        tmp_path, "--format", "json", "--out", str(report),
        env={"GITHUB_STEP_SUMMARY": "/dev/full"},
    )  # fmt: skip
    assert _one_error_line(summary) == f"error: /dev/full: cannot write the step summary: {FULL}"
    # The other outputs and the rows are finished all the same.
    assert json.loads(report.read_text(encoding="utf-8"))["total_cases"] == 7
    assert _rows(tmp_path / "gaps.db") == 140


@pytest.mark.parametrize(
    "args",
    [
        ("export", "--out", "/dev/full"),
        ("export", "--format", "promptfoo", "--out", "/dev/full"),
        ("report", "--html", "/dev/full"),
    ],
)
def test_exports_and_pages_on_a_full_disk_are_one_line_and_exit_two(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    assert _run(tmp_path).returncode == 1
    result = verifier(*args, "--store", str(tmp_path / "gaps.db"), cwd=tmp_path)
    line = _one_error_line(result)
    assert line.startswith("error: /dev/full: cannot write the ") and line.endswith(FULL)
    assert Path("/dev/full").is_char_device()


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder no file can be created in; the kernel's /sys when root ignores modes."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):
        return Path("/sys")
    return folder


@pytest.mark.parametrize("option", ["--out", "--pr-comment"])
def test_a_report_in_a_read_only_folder_is_one_line_before_the_run(
    tmp_path: Path, option: str
) -> None:
    target = _unwritable_folder(tmp_path) / "report.md"
    result = _run(tmp_path, option, str(target))
    line = _one_error_line(result)
    assert line.startswith(f"error: {target}: cannot write the ")
    assert line.endswith(": permission denied")
    assert not target.exists()


def _limited(size: int) -> None:
    # SIGXFSZ would kill the process: ignored, the write fails with EFBIG instead.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


@pytest.mark.e2e
def test_a_store_that_reaches_the_file_size_limit_is_one_line_and_keeps_committed_rows(
    tmp_path: Path,
) -> None:
    lines = CASES.read_text(encoding="utf-8").splitlines()[:2]
    cases = tmp_path / "many.jsonl"
    cases.write_text(
        "".join(
            json.dumps({**json.loads(line), "id": f"case-{n}-{i}"}) + "\n"
            for n in range(150)
            for i, line in enumerate(lines)
        ),
        encoding="utf-8",
    )
    store = tmp_path / "gaps.db"
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "VERIFIER_STORE")}
    result = subprocess.run(
        [sys.executable, "-m", "verifier", "run", str(CONTRACT), "--cases", str(cases),
         "--store", str(store), "--chunk-size", "20", "--format", "json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: _limited(1_000_000),
    )  # fmt: skip

    line = _one_error_line(result)
    assert line.startswith(f"error: gap store {store}: cannot write: the file size limit ")
    assert "is reached" in line
    kept = _rows(store)
    assert 0 < kept < 3000 and kept % 10 == 0  # whole committed chunks of cases
    audit = verifier("audit", "--store", str(store), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert f"{kept} rows checked" in audit.stdout
    # The line names the run to resume once there is room, and resuming it finishes it.
    with sqlite3.connect(store) as conn:
        ((run_id,),) = conn.execute("SELECT run_id FROM runs").fetchall()
    assert line.endswith(
        f"; run {run_id} keeps the rows already stored: --resume {run_id} checks the rest"
    )
    resumed = verifier("run", str(CONTRACT), "--cases", str(cases), "--store", str(store),
                       "--resume", run_id, cwd=tmp_path)  # fmt: skip
    assert f"run {run_id}: 300/300 cases passed" in resumed.stderr, resumed.stderr
    assert _rows(store) == 3000


@pytest.mark.e2e
def test_a_full_temporary_directory_is_named_and_not_blamed_on_the_store(tmp_path: Path) -> None:
    # SQLite keeps temporary files in TMPDIR: a 256 KiB file system there, mounted in a
    # namespace of the run's own (unprivileged where user namespaces are allowed).
    cases = tmp_path / "many.jsonl"
    cases.write_text(
        "".join(json.dumps({"id": f"case-{i:06d}", "output": "x"}) + "\n" for i in range(20_000)),
        encoding="utf-8",
    )
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "contract: demo\nversion: 1\nclaims:\n  - id: x\n    rubric: present\n    field: output\n",
        encoding="utf-8",
    )
    small = tmp_path / "small-tmp"
    small.mkdir()
    store = tmp_path / "gaps.db"
    command = (
        f"mount -t tmpfs -o size=256k tmpfs {small} && TMPDIR={small} exec {sys.executable} "
        f"-m verifier run {contract} --cases {cases} --store {store} --format json "
        "--out /dev/null"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "VERIFIER_STORE")}
    probe = subprocess.run(
        ["unshare", "--map-root-user", "--mount", "sh", "-c", f"mount -t tmpfs tmpfs {small}"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip("cannot mount a small file system in a namespace of its own here")
    result = subprocess.run(
        ["unshare", "--map-root-user", "--mount", "sh", "-c", command],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    line = _one_error_line(result)
    assert f"no space left in the temporary directory {small} (TMPDIR)" in line
    assert f"{tmp_path} has room" in line
    with sqlite3.connect(store) as conn:
        ((run_id,),) = conn.execute("SELECT run_id FROM runs").fetchall()
    assert line.endswith(f"--resume {run_id} checks the rest")
