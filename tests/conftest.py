"""Shared fixtures: paths to the committed example and fixture files, and the
hypothesis settings every property test runs under."""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: hypothesis's default of 200 ms fails a test whose example
# was merely slow once (a loaded machine, a first call paying an import), not wrong.
settings.register_profile("verifier", deadline=None)
# Under CI the examples are derived from each test, not drawn at random: a run fails
# for the change it tests, never for an example no earlier run happened to draw.
settings.register_profile("verifier-ci", parent=settings.get_profile("verifier"), derandomize=True)
settings.load_profile("verifier-ci" if os.environ.get("CI") else "verifier")

# Tests stop runs with SIGINT. A suite started in the background by a shell that is not
# interactive (`cmd &`, nohup) inherits SIGINT ignored, and so would every run it starts:
# caught here instead, it reaches those processes at its default again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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
