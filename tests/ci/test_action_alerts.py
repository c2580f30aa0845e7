"""The action's alerts issue (``alerts-issue: true``): after the runs, the store is
audited and one open issue lists its degradation alerts, a comment naming each alert
once, when it is new. Run as a runner runs the steps (``tests.ci.test_action``); `gh`
is the stand-in that records its calls."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.analyses._history import planted_store
from tests.ci.test_action import BOT, CONTRACT, run_action
from tests.conftest import EXAMPLES

INPUTS = {
    "contract": f"evals/{CONTRACT}",
    "cases": "evals/data-extraction.cases.jsonl",
    "alerts-issue": "true",
}
LIST = ["api", "--paginate", "repos/acme/agents/issues?state=open&per_page=100"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The example contract, and a store whose history has one alert (demo/cites, r6)."""
    root = tmp_path / "workspace"
    (root / "evals").mkdir(parents=True)
    for name in (CONTRACT, "data-extraction.cases.jsonl"):
        shutil.copy(EXAMPLES / name, root / "evals" / name)
    shutil.copytree(EXAMPLES / "schemas", root / "evals" / "schemas")
    (root / ".verifier").mkdir()
    planted_store(root / ".verifier" / "gaps.db", 0.90, 0.92, 0.88, 0.91, 0.90, 0.60)
    return root


def _alerts_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The gh calls of the last alerts step: from its listing of the open issues on
    (the log keeps the calls of every run of the action in the test)."""
    start = max(n for n, call in enumerate(calls) if call["argv"] == LIST)
    return calls[start:]


@pytest.mark.e2e
def test_an_alert_opens_an_issue_and_an_open_issue_names_each_alert_once(
    workspace: Path,
) -> None:
    run = run_action(workspace, INPUTS, event="push")
    assert run.failed_step == "verdict"  # the example's cases fail: the run's verdict
    _, opened = _alerts_calls(run.gh_calls)
    assert opened["argv"][:4] == ["api", "--method", "POST", "repos/acme/agents/issues"]
    assert "title=verifier: degradation alerts" in opened["argv"]
    body = opened["body"]
    assert body.startswith("<!-- verifier-alerts -->\n")
    assert "- `demo/cites` at run `r6` (2026-11-06T10:00:00Z): pass rate 0.600" in body
    assert "<!-- alert-ids: " in body

    # The next run finds its issue: nothing new, nothing posted.
    issue = {"number": 5, "user": BOT, "body": body}
    again = run_action(workspace, INPUTS, event="push", comments=[issue])
    assert _alerts_calls(again.gh_calls) == [{"argv": LIST}]

    # An issue someone else opened with the marker is not taken over; an issue of this
    # action that has not named the alert gets it in its body and in one comment.
    forged = {"number": 6, "user": {"login": "mallory"}, "body": body}
    older = {"number": 7, "user": BOT, "body": "<!-- verifier-alerts -->\n"}
    third = run_action(workspace, INPUTS, event="push", comments=[forged, older])
    _, patched, commented = _alerts_calls(third.gh_calls)
    assert patched["argv"][:4] == ["api", "--method", "PATCH", "repos/acme/agents/issues/7"]
    assert patched["body"] == body
    assert commented["argv"][:4] == [
        "api", "--method", "POST", "repos/acme/agents/issues/7/comments",
    ]  # fmt: skip
    assert commented["body"].startswith("1 new degradation alert(s):\n\n- `demo/cites` at run")


@pytest.mark.e2e
def test_without_the_input_the_store_is_not_audited_for_an_issue(workspace: Path) -> None:
    run = run_action(workspace, {**INPUTS, "alerts-issue": "false"}, event="push")
    assert all(call["argv"] != LIST for call in run.gh_calls)
