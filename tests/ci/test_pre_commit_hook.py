"""The `verifier-check` pre-commit hook, run by the real pre-commit in a temporary git repo.

pre-commit installs a `language: python` hook by pip-installing this repository into
a fresh environment, which needs a package index; so the manifest is validated by
pre-commit's own schema, and the hook is run by `pre-commit run` as a local hook with
the manifest's own entry, file patterns and types (language `system`, the
`verifier` on PATH being this checkout). What pre-commit selects, passes and
reports is then real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pre_commit.clientlib import load_manifest

from tests.conftest import EXAMPLES, ROOT

MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def _hook() -> dict[str, Any]:
    [hook] = [h for h in load_manifest(str(MANIFEST)) if h["id"] == "verifier-check"]
    return hook


def test_manifest_is_valid_for_pre_commit() -> None:
    hook = _hook()
    assert hook["entry"] == "verifier check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "contracts").mkdir(parents=True)
    (root / "tools").mkdir()
    shutil.copy(EXAMPLES / "data-extraction.yaml", root / "contracts" / "extraction.yaml")
    shutil.copytree(EXAMPLES / "schemas", root / "contracts" / "schemas")
    (root / "contracts" / "README.txt").write_text("not a contract\n")
    # YAML outside contracts/ is not a contract and must not be checked.
    (root / "tools" / "config.yml").write_text("name: build\nsteps: [lint]\n")
    hook = {k: v for k, v in _hook().items() if k in ("id", "name", "entry", "files", "types")}
    config = {"repos": [{"repo": "local", "hooks": [{**hook, "language": "system"}]}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "verifier"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verifier "$@"\n')
    shim.chmod(0o755)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "VERIFIER_STORE")}
    env.update(
        PATH=f"{repo.parent / 'bin'}{os.pathsep}{env['PATH']}",
        PYTHONPATH=str(ROOT),
        PRE_COMMIT_HOME=str(repo.parent / "pre-commit-home"),
    )
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.e2e
def test_hook_passes_valid_contracts_and_skips_other_yaml(repo: Path) -> None:
    result = _pre_commit(repo, "verifier-check", "--all-files", "--verbose")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "contracts/extraction.yaml: ok: org-extraction v1, 10 claims" in result.stdout
    assert "tools/config.yml" not in result.stdout
    assert "Passed" in result.stdout


@pytest.mark.e2e
def test_hook_fails_on_a_broken_contract_naming_its_line(repo: Path) -> None:
    contract = repo / "contracts" / "extraction.yaml"
    contract.write_text(contract.read_text().replace("rubric: enum", "rubric: enumm"))

    result = _pre_commit(repo, "verifier-check", "--all-files")

    assert result.returncode == 1
    assert "Failed" in result.stdout
    assert "contracts/extraction.yaml:30:" in result.stdout
    assert "1 problem found" in result.stdout


@pytest.mark.e2e
def test_hook_on_staged_files_checks_only_the_contracts_among_them(repo: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    (repo / "tools" / "config.yml").write_text("name: build\nsteps: [lint, test]\n")

    result = _pre_commit(repo, "verifier-check", "--files", "tools/config.yml")

    assert result.returncode == 0
    assert "(no files to check)Skipped" in result.stdout.replace(".", "")
