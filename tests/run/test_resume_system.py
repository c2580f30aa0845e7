"""A run is resumed with the system under test it started with, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES
from tests.run.test_sampling import interrupted_run

CONTRACT = EXAMPLES / "support-bot.yaml"
CASES = EXAMPLES / "support-bot.cases.jsonl"


def resume(tmp_path: Path, options: dict[str, object], *flags: str) -> tuple[int, str]:
    db = tmp_path / "gaps.db"
    run_id = interrupted_run(db, options, CONTRACT)
    result = verifier(
        "run", str(CONTRACT), "--cases", str(CASES), "--store", str(db), "--resume", run_id,
        *flags, cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    return result.returncode, result.stderr


STARTED = {"sut": "python:support_bot:answer", "repeat": 3}


def test_the_same_system_resumes(tmp_path: Path) -> None:
    code, stderr = resume(tmp_path, STARTED)
    assert code == 0, stderr


@pytest.mark.parametrize(
    ("options", "flags", "fragment"),
    [
        (STARTED, ("--sut", "python:support_bot:answer_brief"), "ran the system python:support_bot:answer"),
        (STARTED, ("--repeat", "2"), "use --repeat 3"),
        ({}, (), "ran no system under test"),
        ({**STARTED, "variant": "brief"}, (), "one of a --variant pair"),
    ],
)  # fmt: skip
def test_another_system_is_refused(
    tmp_path: Path, options: dict[str, object], flags: tuple[str, ...], fragment: str
) -> None:
    code, stderr = resume(tmp_path, options, *flags)
    assert code == 2 and fragment in stderr, stderr
