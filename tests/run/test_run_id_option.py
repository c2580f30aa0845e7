"""`run --run-id` takes one kind of id: what logs, annotations, URLs and file names
can carry as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

EXTRACTION = EXAMPLES / "data-extraction.yaml"
RULE = "1 to 100 letters, digits, '_', '.' or '-', starting with a letter or digit"


def _one_case(tmp_path: Path) -> Path:
    cases = tmp_path / "one.jsonl"
    lines = (EXAMPLES / "data-extraction.cases.jsonl").read_text(encoding="utf-8")
    cases.write_text(lines.splitlines()[0] + "\n", encoding="utf-8")
    return cases


@pytest.mark.parametrize(
    "run_id",
    [
        "../../etc/x",
        "a\nb",
        "x" * 5000,
        "x'; DROP TABLE rows;--",
        "run id",
        "-x",
        "last",
        "last~1",
        "caf\u00e9",
        "",
    ],
)
def test_a_run_id_outside_the_rule_is_refused_before_anything_is_stored(
    tmp_path: Path, run_id: str
) -> None:
    cases = _one_case(tmp_path)
    result = verifier(
        "run", str(EXTRACTION), "--cases", str(cases), "--run-id", run_id, cwd=tmp_path
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert RULE in result.stderr and "--run-id" in result.stderr
    if len(run_id) > 40 or "\n" in run_id:  # shown escaped and cut, never raw
        assert run_id not in result.stderr and len(result.stderr) < 400
    assert not (tmp_path / ".verifier").exists()
    assert_no_traceback(result)


def test_a_run_id_within_the_rule_names_the_run(tmp_path: Path) -> None:
    cases = _one_case(tmp_path)
    run_id = "pr-12.attempt_2-" + "x" * 84
    result = verifier(
        "run", str(EXTRACTION), "--cases", str(cases), "--run-id", run_id, cwd=tmp_path
    )
    assert result.returncode in (0, 1) and f"run {run_id}:" in result.stderr, result.stderr
    assert run_id in verifier("runs", cwd=tmp_path).stdout


def test_run_help_states_the_rule(tmp_path: Path) -> None:
    shown = " ".join(verifier("run", "--help", cwd=tmp_path).stdout.split())
    assert RULE in shown
