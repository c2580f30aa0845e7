"""The tutorial runs as written: its commands, in order, in an empty folder, print what it shows.

Each ```sh block of docs/getting-started.md is run in one shell, one after the other (a
``cd`` carries on), except blocks marked ``<!-- illustrative: REASON -->`` on the line
before their fence (they need a key or a GitHub repository; see tests/docs/_blocks.py).
The ```text block after a command shows its output: every line of it but ``...`` must be printed, run ids and hashes aside. A command whose line
ends in ``# exits N`` must exit N; the others must exit 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.docs._blocks import Block, page_blocks

PAGE = ROOT / "docs" / "getting-started.md"
VOLATILE = (
    (re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}"), "RUN"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "HASH"),
)


def _blocks() -> list[Block]:
    return page_blocks(PAGE)


def _steps() -> list[tuple[str, str | None]]:
    """Each command block that runs, with the output block that follows it (if any)."""
    blocks = _blocks()
    steps: list[tuple[str, str | None]] = []
    for i, block in enumerate(blocks):
        if block.lang != "sh" or block.illustrative is not None:
            continue
        follows = blocks[i + 1] if i + 1 < len(blocks) else None
        steps.append((block.body, follows.body if follows and follows.lang == "text" else None))
    return steps


def _normal(text: str) -> str:
    for pattern, name in VOLATILE:
        text = pattern.sub(name, text)
    return text


def _expected_exit(command: str) -> int:
    found = re.search(r"# exits (\d+)\s*$", command)
    return int(found.group(1)) if found else 0


def _run_in_one_shell(commands: list[str], where: Path) -> list[tuple[str, int]]:
    marker = "@@@verifier-tutorial"
    script = "".join(f'{{ {command}\n}} 2>&1\necho "{marker} $?"\n' for command in commands)
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "OPENAI_", "VERIFIER_", "GITHUB_")) and name != "CI"
    }
    # The page's tables were captured 100 columns wide; `verifier` is this interpreter's.
    env |= {"COLUMNS": "100", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", script], cwd=where, env=env, capture_output=True, text=True, timeout=600
    )
    parts = re.split(rf"^{marker} (\d+)\n", done.stdout, flags=re.M)
    return [(parts[i], int(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]


@pytest.mark.e2e
def test_the_tutorial_runs_word_for_word_in_an_empty_folder(tmp_path: Path) -> None:
    steps = _steps()
    assert len(steps) >= 8, "the tutorial lost its commands"
    results = _run_in_one_shell([command for command, _ in steps], tmp_path)
    assert len(results) == len(steps)
    for (command, shown), (printed, status) in zip(steps, results, strict=True):
        assert status == _expected_exit(command), f"{command}\n{printed}"
        if shown is None:
            continue
        got = {line.rstrip() for line in _normal(printed).splitlines()}
        missing = [
            line.rstrip()
            for line in _normal(shown).splitlines()
            if line.strip() != "..." and line.rstrip() not in got
        ]
        assert missing == [], f"{command}: lines the page shows but the command did not print"
    # It ends with a gated run in a store that travels with the project.
    assert (tmp_path / "shop" / "evals" / "gaps.db").is_file()
    assert (tmp_path / "shop" / "evals" / "support-answers.gate.yaml").is_file()


def test_the_tutorials_workflow_uses_the_actions_own_inputs() -> None:
    workflows = [
        yaml.safe_load(b.body) for b in _blocks() if b.lang == "yaml" and "uses:" in b.body
    ]
    assert len(workflows) == 1
    steps = workflows[0]["jobs"]["evals"]["steps"]
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    used = next(step for step in steps if step.get("uses", "").endswith("/verifier@v0"))
    assert set(used["with"]) <= set(action["inputs"])
    # The gate and the store it is sealed in are the ones the tutorial made.
    assert "--gate evals/support-answers.gate.yaml" in used["with"]["args"]
    assert used["with"]["store"] == "evals/gaps.db"
