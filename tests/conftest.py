"""Shared fixtures: paths to the committed example and fixture files."""

from __future__ import annotations

import socket
from collections.abc import Iterator
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


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port of 127.0.0.1 that refuses connections for the whole test.

    A socket holds it bound without listening: a port merely found free and closed
    again could be taken by any server started meanwhile (this run's or another's).
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield holder.getsockname()[1]
