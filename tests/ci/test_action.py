"""The composite action (action.yml), its shell steps run the way a GitHub runner runs them.

Each `run:` step goes to `bash --noprofile --norc -eo pipefail` in a temporary
workspace, with its own GITHUB_OUTPUT file, a shared GITHUB_STEP_SUMMARY, its `env:`
expressions and `if:` conditions evaluated over the inputs, the event and earlier
steps' outputs. verifier runs for real; `gh` (the GitHub API client, an external
service) is a stand-in on PATH that records its arguments and the comment body it
was given. Not run here: `actions/setup-python` (a `uses:` step) and the pip install
of the action's own path, which needs a package index; `verifier` and `python` on
PATH are this interpreter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests._cli import verifier_process
from tests.conftest import EXAMPLES, ROOT

ACTION = ROOT / "action.yml"
CONTRACT = "data-extraction.yaml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
NOT_RUN_OFFLINE = {"install"}

FAKE_GH = """\
import json, os, sys
args = sys.argv[1:]
record = {"argv": args}
for i, arg in enumerate(args):
    if arg in ("-F", "--field") and args[i + 1].startswith("body=@"):
        with open(args[i + 1][len("body=@"):], encoding="utf-8") as handle:
            record["body"] = handle.read()
with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(record) + "\\n")
if "--paginate" in args:
    # The list call: the comments, as GitHub pages them (one JSON array per page).
    comments = json.loads(os.environ.get("FAKE_GH_COMMENTS", "[]"))
    for start in range(0, max(len(comments), 1), 2):
        print(json.dumps(comments[start:start + 2]))
elif os.environ.get("FAKE_GH_REFUSE"):
    print("gh: Resource not accessible by integration (HTTP 403)", file=sys.stderr)
    sys.exit(1)
"""
BOT = {"login": "github-actions[bot]"}


@dataclass
class ActionRun:
    """What running the action's steps left behind."""

    steps: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    summary: str = ""
    gh_calls: list[dict[str, Any]] = field(default_factory=list)
    failed_step: str | None = None


def _action() -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return action


def _evaluate(expression: str, context: dict[str, Any]) -> Any:
    """The expressions action.yml uses: dotted lookups, `== 'literal'` and `&&`."""
    if "&&" in expression:
        return all(_evaluate(part.strip(), context) for part in expression.split("&&"))
    if "==" in expression:
        left, right = (part.strip() for part in expression.split("==", 1))
        assert right.startswith("'") and right.endswith("'"), expression
        return str(_evaluate(left, context)) == right[1:-1]
    value: Any = context
    for part in expression.split("."):
        assert isinstance(value, dict), f"cannot evaluate {expression!r}"
        value = value.get(part, "")
    return value


def _substitute(text: str, context: dict[str, Any]) -> str:
    return EXPRESSION.sub(lambda m: str(_evaluate(m.group(1), context)), text)


def _read_outputs(path: Path) -> dict[str, str]:
    outputs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        assert "<<" not in line, "multi-line outputs are not emulated here"
        key, _, value = line.partition("=")
        outputs[key] = value
    return outputs


def run_action(
    workspace: Path,
    inputs: dict[str, str],
    *,
    event: str = "pull_request",
    comments: list[dict[str, Any]] | None = None,
    extra_env: dict[str, str] | None = None,
) -> ActionRun:
    action = _action()
    bin_dir = workspace.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in {
        "gh": f"#!{sys.executable}\n{FAKE_GH}",
        "verifier": f'#!/bin/sh\nexec "{sys.executable}" -m verifier "$@"\n',
        "python": f'#!/bin/sh\nexec "{sys.executable}" "$@"\n',
    }.items():
        (bin_dir / name).write_text(body, encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    temp = workspace.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    summary = workspace.parent / "step-summary.md"
    summary.write_text("", encoding="utf-8")
    gh_log = workspace.parent / "gh-calls.jsonl"
    defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    context: dict[str, Any] = {
        "github": {
            "token": "ghs_test_token",
            "event_name": event,
            "event": {"pull_request": {"number": "7"}} if event == "pull_request" else {},
        },
        "steps": {},
    }
    context["inputs"] = {k: _substitute(v, context) for k, v in {**defaults, **inputs}.items()}
    base_env = {k: v for k, v in os.environ.items() if k not in ("CI", "VERIFIER_STORE")}
    base_env.update(
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        PYTHONPATH=str(ROOT),
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_REPOSITORY="acme/agents",
        GITHUB_EVENT_NAME=event,
        GITHUB_STEP_SUMMARY=str(summary),
        RUNNER_TEMP=str(temp),
        FAKE_GH_LOG=str(gh_log),
        FAKE_GH_COMMENTS=json.dumps(comments or []),
    )
    base_env.update(extra_env or {})
    result = ActionRun()
    for index, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        if "run" not in step or step_id in NOT_RUN_OFFLINE:
            continue
        if "if" in step and not _evaluate(step["if"], context):
            continue
        outputs_file = temp / f"output-{step_id}"
        outputs_file.write_text("", encoding="utf-8")
        env = dict(base_env, GITHUB_OUTPUT=str(outputs_file))
        env.update({k: _substitute(str(v), context) for k, v in step.get("env", {}).items()})
        script = temp / f"{step_id}.sh"
        script.write_text(_substitute(step["run"], context), encoding="utf-8")
        assert step["shell"] == "bash"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        result.steps[step_id] = done
        result.outputs[step_id] = _read_outputs(outputs_file)
        context["steps"][step_id] = {"outputs": result.outputs[step_id]}
        if done.returncode != 0:
            result.failed_step = step_id
            break
    result.summary = summary.read_text(encoding="utf-8")
    if gh_log.exists():
        result.gh_calls = [json.loads(line) for line in gh_log.read_text().splitlines()]
    return result


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A checkout with the example contract, main's cases and a pull request's cases."""
    root = tmp_path / "workspace"
    (root / "evals").mkdir(parents=True)
    for name in (CONTRACT, "data-extraction.cases.jsonl", "data-extraction.candidate.cases.jsonl"):
        shutil.copy(EXAMPLES / name, root / "evals" / name)
    shutil.copytree(EXAMPLES / "schemas", root / "evals" / "schemas")
    return root


def _baseline_report(workspace: Path) -> Path:
    """main's run of the contract, as its JSON report artifact."""
    report = workspace / "main-report.json"
    done = verifier_process(
        *("run", f"evals/{CONTRACT}"),
        *("--cases", "evals/data-extraction.cases.jsonl", "--store", "main.db"),
        *("--format", "json", "--out", str(report)),
        cwd=workspace,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1, done.stderr
    return report


PR_INPUTS = {
    "contract": f"evals/{CONTRACT}",
    "cases": "evals/data-extraction.candidate.cases.jsonl",
}


@pytest.mark.e2e
def test_pull_request_posts_comment_with_changes_and_fails_on_failing_cases(
    workspace: Path,
) -> None:
    baseline = _baseline_report(workspace)
    main_run = json.loads(baseline.read_text())["run_id"]

    run = run_action(workspace, {**PR_INPUTS, "baseline": "main-report.json"})

    assert run.steps["check"].returncode == 0
    outputs = run.outputs["run"]
    assert outputs["exit-code"] == "1"
    report = json.loads(Path(outputs["report"]).read_text())
    assert outputs["run-id"] == report["run_id"] != main_run
    assert report["failed_cases"] == 3
    # The verdict step fails the job after the comment was posted.
    assert run.failed_step == "verdict" and run.steps["verdict"].returncode == 1

    list_call, post = run.gh_calls
    assert list_call["argv"][:3] == ["api", "--paginate", "repos/acme/agents/issues/7/comments"]
    assert post["argv"][:4] == ["api", "--method", "POST", "repos/acme/agents/issues/7/comments"]
    body = post["body"]
    assert body == Path(outputs["reports"], "0.md").read_text()
    assert body.startswith("<!-- verifier-pr-comment:org-extraction -->\n")
    assert f"baseline run `{main_run}`" in body
    assert "**1** new failing result · **4** fixed" in body
    assert "`brightpay-2026-11-02` · `industry_known` **fail**" in body

    # The step summary is the same comparison, appended by verifier itself.
    assert f"run `{report['run_id']}`" in run.summary
    assert "| industry_known | 85.7% | ▲ +14.3 pp |" in run.summary

    # Failing claims are annotated at their line of the contract, relative to the workspace.
    annotations = [
        line for line in run.steps["run"].stderr.splitlines() if line.startswith("::error ")
    ]
    assert any(
        line.startswith(
            f"::error file=evals/{CONTRACT},line=29,col=5,title=verifier%3A industry_known"
        )
        for line in annotations
    ), annotations


@pytest.mark.e2e
def test_pull_request_updates_the_comment_it_posted_before(workspace: Path) -> None:
    comments = [
        {"id": 11, "user": {"login": "alice"}, "body": "Looks good to me"},
        {"id": 12, "user": BOT, "body": "<!-- verifier-pr-comment:other-contract -->\n"},
        {"id": 42, "user": BOT, "body": "<!-- verifier-pr-comment:org-extraction -->\nold body"},
    ]
    run = run_action(workspace, PR_INPUTS, comments=comments)

    _, update = run.gh_calls
    assert update["argv"][:4] == [
        "api",
        "--method",
        "PATCH",
        "repos/acme/agents/issues/comments/42",
    ]
    assert "| claim | pass rate | passed |" in update["body"]  # no baseline: no change column
    assert "Changes against the baseline" not in update["body"]


@pytest.mark.e2e
def test_a_comment_someone_else_wrote_with_the_marker_is_never_updated(
    workspace: Path,
) -> None:
    forged = {
        "id": 66,
        "user": {"login": "mallory"},
        "body": "<!-- verifier-pr-comment:org-extraction -->\n## all passed",
    }
    run = run_action(workspace, PR_INPUTS, comments=[forged])
    _, posted = run.gh_calls
    assert posted["argv"][:4] == ["api", "--method", "POST", "repos/acme/agents/issues/7/comments"]


@pytest.mark.e2e
def test_a_token_that_may_not_comment_costs_a_warning_not_the_verdict(workspace: Path) -> None:
    run = run_action(workspace, PR_INPUTS, extra_env={"FAKE_GH_REFUSE": "1"})
    comment_step = [k for k in run.steps if k.startswith("step")][-1]
    assert run.steps[comment_step].returncode == 0
    assert "::warning title=verifier::could not post" in run.steps[comment_step].stdout
    # The verdict is the run's, not gh's: the example's cases fail, so exit 1.
    assert run.failed_step == "verdict" and run.steps["verdict"].returncode == 1


@pytest.mark.e2e
def test_a_second_use_of_the_action_in_a_job_starts_clean(workspace: Path) -> None:
    two = {
        "contract": f"evals/{CONTRACT}\nevals/{CONTRACT}",
        "cases": "evals/data-extraction.cases.jsonl\nevals/data-extraction.candidate.cases.jsonl",
    }
    first = run_action(workspace, {**two, "comment": "false"})
    second = run_action(workspace, PR_INPUTS)
    assert first.outputs["run"]["reports"] != second.outputs["run"]["reports"]
    posted = [call for call in second.gh_calls if "body" in call]
    assert len(posted) == 1  # only this use's comment, none left over from the first


@pytest.mark.e2e
def test_push_event_writes_summary_but_posts_no_comment(workspace: Path) -> None:
    run = run_action(
        workspace,
        {"contract": f"evals/{CONTRACT}", "cases": "evals/data-extraction.cases.jsonl"},
        event="push",
    )

    assert run.gh_calls == []
    assert run.outputs["run"]["exit-code"] == "1"
    assert "## ❌ `org-extraction v1`: 5 of 7 cases failed" in run.summary


@pytest.mark.e2e
def test_comment_disabled_posts_nothing(workspace: Path) -> None:
    run = run_action(workspace, {**PR_INPUTS, "comment": "false"})
    assert run.gh_calls == []
    assert run.outputs["run"]["exit-code"] == "1"


@pytest.mark.e2e
def test_missing_baseline_artifact_comments_without_comparison(workspace: Path) -> None:
    run = run_action(workspace, {**PR_INPUTS, "baseline": "never-downloaded.json"})

    assert (
        "::notice title=verifier::baseline never-downloaded.json not found"
        in run.steps["run"].stdout
    )
    _, post = run.gh_calls
    assert "Changes against the baseline" not in post["body"]


@pytest.mark.e2e
def test_several_contracts_each_get_a_report_and_a_comment(workspace: Path) -> None:
    run = run_action(
        workspace,
        {
            "contract": f"evals/{CONTRACT}\nevals/{CONTRACT}\n",
            "cases": "evals/data-extraction.cases.jsonl\nevals/data-extraction.candidate.cases.jsonl",
        },
    )

    reports = Path(run.outputs["run"]["reports"])
    assert json.loads((reports / "0.json").read_text())["failed_cases"] == 5
    assert json.loads((reports / "1.json").read_text())["failed_cases"] == 3
    posts = [c for c in run.gh_calls if "--method" in c["argv"]]
    assert [p["body"] for p in posts] == [
        (reports / "0.md").read_text(),
        (reports / "1.md").read_text(),
    ]


@pytest.mark.e2e
def test_invalid_contract_stops_at_the_check_step(workspace: Path) -> None:
    contract = workspace / "evals" / CONTRACT
    contract.write_text(contract.read_text().replace("rubric: enum", "rubric: enumm"))

    run = run_action(workspace, PR_INPUTS)

    assert run.failed_step == "check" and run.steps["check"].returncode == 2
    assert f"evals/{CONTRACT}:30:" in run.steps["check"].stdout
    assert "run" not in run.steps and run.gh_calls == []


@pytest.mark.e2e
def test_mismatched_contract_and_cases_lists_fail_with_exit_two(workspace: Path) -> None:
    run = run_action(workspace, {"contract": f"evals/{CONTRACT}", "cases": ""})

    assert run.outputs["run"]["exit-code"] == "2"
    assert "1 contract(s) but 0 cases file(s)" in run.steps["run"].stdout
    assert run.failed_step == "verdict" and run.steps["verdict"].returncode == 2


@pytest.mark.e2e
def test_args_are_split_like_a_shell_line_and_never_evaluated(workspace: Path) -> None:
    args = "--store 'stores/two words.db' --threshold 0.5 $(touch pwned)"
    (workspace / "stores").mkdir()
    run = run_action(workspace, {**PR_INPUTS, "args": args, "comment": "false"})
    # "$(touch pwned)" reached verifier as one word, a usage error, and ran nothing.
    assert not (workspace / "pwned").exists()
    assert run.outputs["run"]["exit-code"] == "2"
    assert "$(touch" in run.steps["run"].stderr
    good = run_action(
        workspace, {**PR_INPUTS, "args": "--store 'stores/two words.db'", "comment": "false"}
    )
    assert good.outputs["run"]["exit-code"] == "1"
    assert (workspace / "stores" / "two words.db").is_file()


@pytest.mark.e2e
def test_unbalanced_quotes_in_args_are_an_error_with_exit_two(workspace: Path) -> None:
    run = run_action(workspace, {**PR_INPUTS, "args": "--threshold '0.5", "comment": "false"})
    assert run.outputs["run"]["exit-code"] == "2"
    assert "::error title=verifier::args: No closing quotation" in run.steps["run"].stdout
    assert run.failed_step == "verdict"


def test_inputs_reach_scripts_only_through_env() -> None:
    """An expression inside a script is pasted into the shell text: a crafted input
    (a branch name, a file name) would run as code. Through `env:` it stays data."""
    scripts = [step["run"] for step in _action()["runs"]["steps"] if "run" in step]
    assert scripts and not [s for s in scripts if "${{" in s]
