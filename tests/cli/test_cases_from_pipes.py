"""`run --cases` reads any readable file: standard input (`-`), a named pipe, a
process substitution; the run reads it as often as it needs and leaves no copy."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

EXTRACTION = EXAMPLES / "data-extraction.yaml"
CASES = (EXAMPLES / "data-extraction.cases.jsonl").read_bytes()


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "VERIFIER_STORE")}
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    return env


def _run_stdin(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "run", str(EXTRACTION), "--cases", "-", *args],
        cwd=tmp_path,
        env=_env(tmp_path),
        input=data,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.e2e
def test_cases_from_standard_input_are_run_and_recorded_as_given(tmp_path: Path) -> None:
    result = _run_stdin(tmp_path, CASES, "--format", "json")
    assert result.returncode == 1, result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["total_cases"] == len(CASES.splitlines())
    with sqlite3.connect(tmp_path / ".verifier" / "gaps.db") as db:
        (options,) = db.execute("SELECT options FROM runs").fetchone()
    assert json.loads(options)["cases"] == "-"
    assert list((tmp_path / "tmp").iterdir()) == []  # the copy is gone


@pytest.mark.e2e
def test_empty_standard_input_is_one_line_naming_it(tmp_path: Path) -> None:
    result = _run_stdin(tmp_path, b"")
    assert result.returncode == 2
    assert result.stderr.decode().strip() == "error: -: no cases (empty file)"


def test_cases_from_a_named_pipe_are_run(tmp_path: Path) -> None:
    pipe = tmp_path / "cases.fifo"
    os.mkfifo(pipe)

    def feed() -> None:
        with pipe.open("wb") as writer:
            writer.write(CASES)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    result = verifier("run", str(EXTRACTION), "--cases", str(pipe), cwd=tmp_path)
    feeder.join(timeout=10)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"/{len(CASES.splitlines())} cases passed" in result.stderr
    assert_no_traceback(result)


@pytest.mark.e2e
def test_a_process_substitution_is_read_like_a_file(tmp_path: Path) -> None:
    script = (
        f"{sys.executable} -m verifier run {EXTRACTION} "
        f"--cases <(cat {EXAMPLES / 'data-extraction.cases.jsonl'}) --format json"
    )
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=_env(tmp_path), capture_output=True, timeout=60
    )
    assert result.returncode == 1, result.stderr.decode()
    assert json.loads(result.stdout)["total_cases"] == len(CASES.splitlines())


def _file_size_limit() -> None:
    # SIGXFSZ would kill the process: ignored, the write fails with EFBIG instead.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


@pytest.mark.e2e
def test_a_copy_that_cannot_be_written_names_the_temporary_directory(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "verifier", "run", str(EXTRACTION), "--cases", "-"],
        cwd=tmp_path,
        env=_env(tmp_path),
        input=CASES,
        capture_output=True,
        timeout=60,
        preexec_fn=_file_size_limit,
    )
    assert result.returncode == 2
    line = result.stderr.decode().strip()
    assert line == (
        f"error: standard input: cannot copy the cases to a temporary file in {tmp_path}/tmp "
        "(TMPDIR; they are read more than once): the file size limit is reached "
        "(the file is too large)"
    )
    assert not (tmp_path / ".verifier").exists()
    assert list((tmp_path / "tmp").iterdir()) == []
