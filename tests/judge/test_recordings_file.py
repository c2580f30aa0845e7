"""A damaged recordings file stops the run before any call, naming the line and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier
from tests.conftest import EXAMPLES

GOOD = (EXAMPLES / "account-research.recordings.jsonl").read_text(encoding="utf-8").splitlines()
ENTRY = '"key":"k","provider":"anthropic","model":"m","prompt_sha":"a","sampling_sha":"b"'


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("garbage", "(invalid JSON: unexpected character, expected a JSON value, column 1)"),
        ("[1, 2]", "(a JSON object per line is expected)"),
        ('{"key": "k", "model": "m"}', "(missing provider, prompt_sha, sampling_sha, reply)"),
        ("{" + ENTRY + ',"reply":"yes"}', "(reply must be a JSON object)"),
        (
            "{" + ENTRY + ',"reply":{"usage":[12, 3]}}',
            "(reply.usage must be an object of token counts (integers))",
        ),
        ("{" + ENTRY + ',"reply":{"latency_ms":"fast"}}', "(reply.latency_ms must be a number)"),
        ("{" + ENTRY + ',"reply":{"text":{"a":1}}}', "(reply.text must be a string or null)"),
    ],
)
def test_a_damaged_line_is_named_with_its_problem(tmp_path: Path, line: str, problem: str) -> None:
    recordings = tmp_path / "recordings.jsonl"
    recordings.write_text("\n".join([GOOD[0], line, *GOOD[1:]]) + "\n", encoding="utf-8")
    result = verifier(
        "run", str(EXAMPLES / "account-research.yaml"),
        "--cases", str(EXAMPLES / "account-research.cases.jsonl"),
        "--judges", "replay", "--recordings", str(recordings), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2
    assert_no_traceback(result)
    assert result.stderr.startswith(f"error: {recordings}:2: not a recorded judge reply {problem}")
    assert result.stdout == ""  # stopped before any case was checked
