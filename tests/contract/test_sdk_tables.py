"""The SDK's model tables are read from its files, equal to what importing gives."""

from __future__ import annotations

import subprocess
import sys
import typing

import pytest

from tests.conftest import EXAMPLES
from verifier.llm.providers._sdk_tables import deprecated_models, known_models


def test_the_tables_read_from_source_equal_the_imported_ones() -> None:
    from anthropic._data import DEPRECATED_MODELS
    from anthropic.types.model import Model

    imported = [
        a for arg in typing.get_args(Model) for a in typing.get_args(arg) if isinstance(a, str)
    ]
    assert deprecated_models() == dict(DEPRECATED_MODELS)
    assert known_models() == imported and "claude-haiku-4-5-20251001" in imported


@pytest.mark.e2e
def test_checking_a_contract_with_judges_does_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from verifier.cli import main\n"
        f"try:\n    main(['check', {str(EXAMPLES / 'account-research.yaml')!r}])\n"
        "except SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print('anthropic' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False"
