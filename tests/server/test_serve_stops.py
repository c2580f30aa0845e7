"""``verifier serve`` stopped by Ctrl-C ends quietly with exit 0, as ``verifier view``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server._support import stopped_by_ctrl_c

pytestmark = pytest.mark.e2e


def test_ctrl_c_stops_the_server_quietly_with_exit_0(tmp_path: Path) -> None:
    command = ["serve", "--port", "0", "--store", "gaps.db"]
    code, before, rest = stopped_by_ctrl_c(command, tmp_path, "serving the API on http://")
    assert code == 0
    assert before == ["note: no judge given, so POST /v1/evaluate answers 503\n"]
    assert rest == "server stopped\n"
