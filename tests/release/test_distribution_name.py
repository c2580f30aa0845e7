"""The name to install is ``verifier-llm`` (``verifier`` on the package index is an
unrelated project): every install hint says so; the import package and the command
stay ``verifier``."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import verifier
from tests._cli import verifier as run_verifier
from tests.conftest import ROOT

DISTRIBUTION = "verifier-llm"
_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".hypothesis",
        ".verifier",
        "__pycache__",
        "node_modules",
        "build",
        "dist",
    }
)
_TEXT = frozenset({".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".json", ".jsonl", ".cfg", ""})
# Spelled in pieces so that this file does not match itself.
_WRONG = re.compile(
    "pip" + r"\s+install\s+(-\S+\s+)*['\"]?" + "verifier" + r"(?![-\w.])"
    "|['\"`]" + "verifier" + r"\["
)


def _project_files() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(part in _SKIPPED_DIRS or part.endswith(".egg-info") for part in parts):
            continue
        if path.is_file() and path.suffix in _TEXT:
            yield path


def test_no_message_or_doc_tells_to_install_the_unrelated_verifier() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _project_files()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if _WRONG.search(line)
    ]
    assert wrong == []


def test_the_extras_hints_name_the_distribution() -> None:
    hints = {
        path.relative_to(ROOT).as_posix()
        for path in _project_files()
        if f"pip install '{DISTRIBUTION}[" in path.read_text(encoding="utf-8", errors="replace")
    }
    assert {
        "README.md",
        "docs/index.md",
        "verifier/cli/serve.py",
        "verifier/cli/export.py",
        "verifier/gaps/postgres/conn.py",
        "verifier/llm/providers/openai_compat.py",
    } <= hints


def test_the_distribution_is_verifier_llm_and_its_version_is_the_package_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"verifier": "verifier.cli:main"}
    assert version(DISTRIBUTION) == verifier.__version__
    shown = run_verifier("--version", cwd=ROOT)
    assert shown.returncode == 0
    assert shown.stdout == f"verifier, version {verifier.__version__}\n"


def test_the_license_file_is_the_license_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text
