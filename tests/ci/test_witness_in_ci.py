"""The store's head in CI: the action's `witness` input appends it to a file the
workflow keeps, its `head` output names it, and the pull-request comment shows it with
the command that checks it later."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci.test_action import PR_INPUTS, run_action, workspace
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

__all__ = ["workspace"]  # the fixture, shared with the action's own tests


def test_the_action_witnesses_the_head_and_the_comment_shows_how_to_check_it(
    workspace: Path,
) -> None:
    run = run_action(workspace, {**PR_INPUTS, "witness": "heads.jsonl"})
    assert run.steps["run"].returncode == 0, run.steps["run"].stderr
    outputs = run.outputs["run"]
    head = outputs["head"]
    assert head == json.loads(Path(outputs["report"]).read_text())["head"]
    (entry,) = [json.loads(line) for line in (workspace / "heads.jsonl").read_text().splitlines()]
    assert entry["head"] == head and entry["run_id"] == outputs["run-id"]

    (_, post) = run.gh_calls
    body = post["body"]
    assert f"Store head after this run: `{head[:12]}`" in body
    assert f"`verifier audit --expect-head {head}`" in body
    assert body.count(head) == 1  # once, in the command

    audit = subprocess.run(
        [sys.executable, "-m", "verifier", "audit", "--witness", "heads.jsonl"],
        cwd=workspace,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "1 head(s) checked, every one held" in audit.stderr


def test_without_a_witness_input_the_run_writes_no_witness_file(workspace: Path) -> None:
    run = run_action(workspace, PR_INPUTS)
    assert run.steps["run"].returncode == 0
    assert len(run.outputs["run"]["head"]) == 64
    assert not list(workspace.rglob("*heads*"))
