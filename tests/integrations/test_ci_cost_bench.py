"""bench/ci_cost.py: the example job it times is the CI job, and runs offline.

Nothing here is timed; the install and promptfoo's side need the network and are run by
the bench alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    import ci_cost

    return ci_cost


def test_the_example_job_checks_and_replays_every_judge_verdict(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key in the environment would make the judges live; the job must not pass it on.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-a-key")
    job = [sys.executable, "-m", "verifier"]
    steps = bench.example_job(job, tmp_path / "job")
    assert [step.name for step in steps] == ["verifier check", "verifier run"]
    # Read by the verifier the job ran (its environment puts no other code on the path).
    exported = subprocess.run(
        [*job, "export", "--store", "gaps.db"],
        cwd=tmp_path / "job",
        env=bench.offline_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    results = [row for row in rows if "claim_id" in row]
    assert len({row["case_id"] for row in results}) == 5
    judged = [row for row in results if row["kind"] == "judge"]
    assert judged
    assert {row["status"] for row in judged} <= {"pass", "fail", "skipped"}
    assert {row["status"] for row in results} >= {"pass", "fail"}


def test_a_total_adds_the_steps_and_keeps_the_peak_of_the_runs(bench: ModuleType) -> None:
    steps = [
        bench.Step("pip install", 10.0, 8.0, 140.0, "venv size"),
        bench.Step("verifier check", 0.5, 0.4, 45.0, "peak RSS"),
        bench.Step("verifier run", 1.0, 0.9, 58.0, "peak RSS"),
    ]
    total = bench.total("total", steps)
    assert (total.wall, total.cpu, total.mb) == (11.5, 9.3, 58.0)
    table = bench.table({"verifier": [*steps, total]})
    assert "140 venv size" in table
    assert "58 peak RSS" in table
