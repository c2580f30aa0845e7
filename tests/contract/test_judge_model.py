"""Changing a judge's model in a contract file changes those characters and nothing
else: comments, order, quoting and line endings stay; what cannot be changed alone
is refused, and a change that would not load leaves the file as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.contract.judge_model import JudgeModelError, plan_judge_model, write_judge_model
from verifier.contract.load import load_contract

OLD = "claude-haiku-4-5-20251001"
NEW = "claude-sonnet-4-5-20250929"

CONTRACT = """\
# The house contract.   Keep the comments!
contract: house
version: 1
llm_fields: [output]
judges:
  lenient:   {{provider: anthropic, model: "claude-haiku-4-5-20251001"}}
  strict:
    model: {quoted}   # pinned for the audit
    provider: anthropic
    sampling: {{max_tokens: 256}}
claims:
  - {{id: factual, judge: strict, instruction: The output states facts}}
  - {{id: kind, judge: lenient, instruction: The output is kind}}
"""


def write(tmp_path: Path, text: str, newline: str = "\n") -> Path:
    path = tmp_path / "house.yaml"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


@pytest.mark.parametrize(
    ("quoted", "written"),
    [(OLD, NEW), (f"'{OLD}'", f"'{NEW}'"), (f'"{OLD}"', f'"{NEW}"')],
    ids=["plain", "single", "double"],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_only_the_judges_model_characters_change(
    tmp_path: Path, quoted: str, written: str, newline: str
) -> None:
    path = write(tmp_path, CONTRACT.format(quoted=quoted), newline)
    before = path.read_bytes()
    edit = plan_judge_model(path, "strict", NEW)
    assert (edit.old_model, edit.line) == (OLD, 8)
    write_judge_model(edit)
    expected = before.replace(f"    model: {quoted}".encode(), f"    model: {written}".encode())
    assert path.read_bytes() == expected != before
    judges = load_contract(path).contract.judges
    assert (judges["strict"].model, judges["lenient"].model) == (NEW, OLD)


def test_an_anchored_aliased_or_block_model_is_refused(tmp_path: Path) -> None:
    anchored = CONTRACT.format(quoted="*m").replace(
        'model: "claude-haiku-4-5-20251001"', f"model: &m {OLD}"
    )
    path = write(tmp_path, anchored)
    with pytest.raises(JudgeModelError, match=r"house.yaml:8: .* anchor, alias or tag"):
        plan_judge_model(path, "strict", NEW)
    with pytest.raises(JudgeModelError, match=r"house.yaml:6: .* anchor, alias or tag"):
        plan_judge_model(path, "lenient", NEW)
    block = CONTRACT.format(quoted=f"|\n      {OLD}")
    path = write(tmp_path, block)
    with pytest.raises(JudgeModelError, match="not a one-line scalar: change it by hand"):
        plan_judge_model(path, "strict", NEW)


def test_a_missing_judge_and_a_model_that_would_not_load_leave_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, CONTRACT.format(quoted=OLD))
    before = path.read_bytes()
    with pytest.raises(JudgeModelError, match="the contract has no judge 'absent'"):
        plan_judge_model(path, "absent", NEW)
    edit = plan_judge_model(path, "strict", "")
    with pytest.raises(JudgeModelError, match="left as it was: with model  it does not load"):
        write_judge_model(edit)
    assert path.read_bytes() == before
