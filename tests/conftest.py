"""Shared fixtures: paths to the committed example and fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLES = ROOT / "contracts" / "examples"


@pytest.fixture
def write_contract(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Writes YAML text to a contract file in a temporary directory and returns its path."""

    def write(text: str, name: str = "contract.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write
