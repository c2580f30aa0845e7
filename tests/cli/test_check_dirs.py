"""``verifier check DIR``: every contract under a directory, other YAML skipped; the
calibration note only where a contract has judge claims."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests._cli import verifier
from tests.conftest import EXAMPLES

JUDGES_FILE = """\
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 512}
"""


def test_a_directory_of_examples_checks_clean_skipping_other_yaml(tmp_path: Path) -> None:
    examples = tmp_path / "examples"
    shutil.copytree(EXAMPLES, examples)
    # Beside the contracts: a judges file (verifier evaluate's), another tool's config,
    # and a hidden directory; none of them is a contract.
    (examples / "judges.yaml").write_text(JUDGES_FILE, encoding="utf-8")
    (examples / "nested").mkdir()
    (examples / "nested" / "promptfooconfig.yml").write_text("prompts: [a]\n", encoding="utf-8")
    (examples / ".cache").mkdir()
    (examples / ".cache" / "broken.yaml").write_text("contract: [", encoding="utf-8")
    (examples / "nested" / "loop").symlink_to(examples, target_is_directory=True)

    checked = verifier("check", "examples", cwd=tmp_path)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    ok = [line for line in checked.stdout.splitlines() if ": ok: " in line]
    assert [line.split(":")[0] for line in ok] == [
        "examples/account-research.yaml",
        "examples/answer-comparison.yaml",
        "examples/data-extraction.yaml",
        "examples/support-bot.yaml",
        "examples/support-log.yaml",
    ]
    assert (
        "note: examples: skipped 2 YAML file(s) without a top-level `contract:` key: "
        "judges.yaml, nested/promptfooconfig.yml"
    ) in checked.stderr
    assert "broken.yaml" not in checked.stdout + checked.stderr


def test_a_broken_contract_in_a_directory_is_reported_and_fails(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "answer-comparison.yaml", tmp_path / "good.yaml")
    (tmp_path / "bad.yml").write_text("contract: bad\nversion: 1\nclaims: []\n", encoding="utf-8")
    checked = verifier("check", ".", cwd=tmp_path)
    assert checked.returncode == 2
    assert any(line.startswith("bad.yml:") for line in checked.stdout.splitlines())
    assert "good.yaml: ok: answer-comparison v1" in checked.stdout


def test_a_directory_without_contracts_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "judges.yaml").write_text(JUDGES_FILE, encoding="utf-8")
    checked = verifier("check", str(tmp_path), cwd=tmp_path)
    assert checked.returncode == 2
    assert checked.stdout == (
        f"{tmp_path}: no contract found (a .yaml or .yml file with a top-level `contract:` key)\n"
    )
    assert "Traceback" not in checked.stderr


def test_the_calibration_note_is_only_for_contracts_with_judge_claims(tmp_path: Path) -> None:
    rubric_only = verifier("check", str(EXAMPLES / "data-extraction.yaml"), cwd=tmp_path)
    assert rubric_only.returncode == 0
    assert "calibrat" not in rubric_only.stdout + rubric_only.stderr

    with_judges = verifier(
        "check",
        str(EXAMPLES / "data-extraction.yaml"),
        str(EXAMPLES / "account-research.yaml"),
        cwd=tmp_path,
    )
    assert with_judges.returncode == 0
    notes = [line for line in with_judges.stderr.splitlines() if "calibration" in line]
    assert notes == [
        "note: no calibration store found at .verifier/gaps.db; judge calibrations not checked"
    ]
