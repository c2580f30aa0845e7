"""Pre-registered gates on a PostgreSQL store: ``run --gate`` and ``compare --gate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import verifier
from tests.compare.test_gate import BOTS, CASES, CONTRACT

pytestmark = pytest.mark.e2e


def test_gates_decide_on_runs_in_postgresql(postgres_url: str, tmp_path: Path) -> None:
    (tmp_path / "gated.yaml").write_text(CONTRACT)
    (tmp_path / "gated.cases.jsonl").write_text(CASES)
    (tmp_path / "gate_bots.py").write_text(BOTS)
    locked = verifier(
        "gate", "lock", "gated.yaml", "--primary", "polite", "--direction", "better",
        "--threshold", "0.5", "--store", postgres_url, cwd=tmp_path,
    )  # fmt: skip
    assert locked.returncode == 0, locked.stderr
    runs = {}
    for bot, code in (("plain", 1), ("polite", 0)):
        result = verifier(
            "run", "gated.yaml", "--sut", f"python:gate_bots:{bot}", "--store", postgres_url,
            "--gate", "gated.gate.yaml", "--format", "json", cwd=tmp_path, own_process=True,
            timeout=120,
        )  # fmt: skip
        assert result.returncode == code, result.stderr
        runs[bot] = json.loads(result.stdout)["run_id"]
    compared = verifier(
        "compare", runs["plain"], runs["polite"], "--store", postgres_url, "--gate",
        "gated.gate.yaml", "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.returncode == 0, compared.stderr
    assert json.loads(compared.stdout)["gate"]["verdict"] == "PASS"
