"""`verifier check` with a file name in the contract that no file system can look up:
a located problem, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier

LONG = "p" * 300


@pytest.mark.parametrize(
    ("contract", "message"),
    [
        (
            f"claims: [{{id: a, rubric: json_schema, field: output, schema_file: {LONG}}}]\n",
            f"c.yaml:3:10: claim 'a': schema_file '{LONG}' does not exist (relative to the contract)",
        ),
        (
            "judges: {j: {provider: anthropic, model: claude-haiku-4-5-20251001, "
            f"prompt: {LONG}}}}}\nclaims: [{{id: a, judge: j, instruction: Be short}}]\n",
            f"c.yaml:3:77: judge 'j': prompt file '{LONG}' does not exist (relative to the contract)",
        ),
    ],
)
def test_a_file_name_too_long_to_look_up_is_a_located_problem(
    tmp_path: Path, contract: str, message: str
) -> None:
    (tmp_path / "c.yaml").write_text(f"contract: c\nversion: 1\n{contract}", encoding="utf-8")
    result = verifier("check", "c.yaml", cwd=tmp_path)
    assert_no_traceback(result)
    assert result.returncode == 2
    assert message in result.stdout.splitlines(), result.stdout


def test_a_judged_contract_whose_recordings_name_would_be_too_long_runs(tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES

    # 245 bytes fit a file name; its recordings file beside it would need 257.
    contract = tmp_path / f"{'a' * 240}.yaml"
    contract.write_text(
        (EXAMPLES / "account-research.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    cases = EXAMPLES / "account-research.cases.jsonl"
    result = verifier(
        "run", str(contract), "--cases", str(cases), "--store", str(tmp_path / "g.db"),
        "--judges", "replay", cwd=tmp_path,
    )  # fmt: skip
    assert_no_traceback(result)
    assert result.returncode == 1, result.stderr
    assert "0/5 cases passed" in result.stderr
