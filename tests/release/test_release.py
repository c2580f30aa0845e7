"""The release workflow (.github/workflows/release.yml): its build job's shell steps run
here as a runner runs them, on a copy of the repository as the release commit leaves
it (CHANGELOG.md's Unreleased section dated as the version). Not run here: the `uses:`
steps (checkout, setup-python, artifacts, the PyPI upload) and the install of the
build tools, which the dev extra already holds; `python` on PATH is this interpreter.
Installing the wheel fetches its dependencies from the package index, so the full
build is marked slow (about 80 s here)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import verifier
from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
NOT_RUN_HERE = {"tools"}


def _workflow() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return loaded


def _build_steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = _workflow()["jobs"]["build"]["steps"]
    return [step for step in steps if "run" in step and step.get("id") not in NOT_RUN_HERE]


def _release_copy(tmp_path: Path, version: str) -> Path:
    """The tracked and new files of the working tree, with the changelog released."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    workspace = tmp_path / "repo"
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (workspace / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, workspace / name)
    changelog = workspace / "CHANGELOG.md"
    released = changelog.read_text(encoding="utf-8").replace(
        "## [Unreleased]", f"## [Unreleased]\n\n## [{version}] - 2026-12-01", 1
    )
    changelog.write_text(released, encoding="utf-8")
    return workspace


def _run_steps(
    steps: list[dict[str, Any]], workspace: Path, tag: str
) -> subprocess.CompletedProcess[str]:
    """Runs the steps in order as bash does on a runner; returns the first that fails,
    or the last."""
    temp = workspace.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    outputs: dict[str, dict[str, str]] = {}
    base = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GITHUB_", "VERIFIER_", "VIRTUAL_ENV"))
    }
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base['PATH']}"
    done: subprocess.CompletedProcess[str] | None = None
    for step in steps:
        output_file = temp / f"output-{step['id']}"
        output_file.write_text("", encoding="utf-8")
        env = {**base, "GITHUB_REF_NAME": tag, "RUNNER_TEMP": str(temp)}
        env["GITHUB_OUTPUT"] = str(output_file)
        for key, value in step.get("env", {}).items():
            env[key] = re.sub(
                r"\$\{\{\s*steps\.(\w+)\.outputs\.(\w+)\s*\}\}",
                lambda m: outputs[m.group(1)][m.group(2)],
                str(value),
            )
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        outputs[step["id"]] = dict(
            line.split("=", 1) for line in output_file.read_text("utf-8").splitlines()
        )
        if done.returncode != 0:
            return done
    assert done is not None
    return done


def test_a_tag_runs_the_build_and_only_the_publish_job_may_ask_for_an_identity() -> None:
    workflow = _workflow()
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    assert workflow[True] == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert "permissions" not in build
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert [step["uses"] for step in publish["steps"]][
        -1
    ] == "pypa/gh-action-pypi-publish@release/v1"
    runs = " ".join(step.get("run", "") for step in build["steps"])
    for command in ("python -m build", "twine check --strict dist/*", "-m venv", "--version"):
        assert command in runs


@pytest.mark.e2e
def test_a_tag_other_than_the_package_version_stops_the_release(tmp_path: Path) -> None:
    workspace = _release_copy(tmp_path, verifier.__version__)
    check = [step for step in _build_steps() if step["id"] == "version"]
    done = _run_steps(check, workspace, tag="v9.9.9")
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"::error::tag v9.9.9 is not v{verifier.__version__}, the version in verifier/__init__.py"
    )


@pytest.mark.e2e
def test_a_version_the_changelog_does_not_date_stops_the_release(tmp_path: Path) -> None:
    workspace = _release_copy(tmp_path, "0.0.0")
    check = [step for step in _build_steps() if step["id"] == "version"]
    done = _run_steps(check, workspace, tag=f"v{verifier.__version__}")
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"::error::CHANGELOG.md has no section '## [{verifier.__version__}] - YYYY-MM-DD'"
    )


@pytest.mark.e2e
@pytest.mark.slow
def test_the_build_job_builds_checks_and_runs_the_wheel_in_a_fresh_environment(
    tmp_path: Path,
) -> None:
    version = verifier.__version__
    workspace = _release_copy(tmp_path, version)
    done = _run_steps(_build_steps(), workspace, tag=f"v{version}")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    built = sorted(path.name for path in (workspace / "dist").iterdir())
    assert built == [f"verifier_llm-{version}-py3-none-any.whl", f"verifier_llm-{version}.tar.gz"]
    assert "starter/support-answers.yaml: ok: support-answers v1" in done.stdout
