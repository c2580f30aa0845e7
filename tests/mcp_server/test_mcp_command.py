"""``verifier mcp`` as a command: without the SDK it says what to install."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import assert_no_traceback, verifier


@pytest.mark.e2e
def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path) -> None:
    # A package named `mcp` that cannot be imported stands for an environment without it.
    (tmp_path / "absent" / "mcp").mkdir(parents=True)
    (tmp_path / "absent" / "mcp" / "__init__.py").write_text(
        "raise ImportError('No module named mcp')\n", encoding="utf-8"
    )
    result = verifier(
        "mcp", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "absent")}, own_process=True
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: verifier mcp needs the MCP SDK: pip install 'verifier-llm[mcp]'"
    ]
    assert result.stdout == ""
    assert_no_traceback(result)


def test_help_lists_the_options() -> None:
    result = verifier("mcp", "--help", cwd=Path.cwd())
    assert result.returncode == 0
    for option in ("--store", "--judges", "--recordings", "--root"):
        assert option in result.stdout
