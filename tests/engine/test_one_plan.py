"""A run compiles its contract once: the runner and the judge phase share one plan."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from verifier.contract.load import load_contract
from verifier.engine import plan as plan_module
from verifier.engine.plan import Plan
from verifier.gaps.sqlite.store import SqliteStore
from verifier.judge.phase import JudgePhase
from verifier.judge.setup import JudgesOff
from verifier.run.api import run_contract
from verifier.run.assembly import Judges, RunMode, assemble_run

RESEARCH = EXAMPLES / "account-research.yaml"
RESEARCH_CASES = EXAMPLES / "account-research.cases.jsonl"


@pytest.fixture
def plans_built(monkeypatch: pytest.MonkeyPatch) -> list[Plan]:
    """Every plan built from now on, wherever ``build_plan`` was imported."""
    built: list[Plan] = []

    def counted(*parts: object) -> Plan:
        made = Plan(*parts)  # type: ignore[arg-type]
        built.append(made)
        return made

    # build_plan makes its Plan through this module name, whoever calls it.
    monkeypatch.setattr(plan_module, "Plan", counted)
    return built


@pytest.mark.parametrize("mode", ["replay", "off"])
def test_a_judged_run_builds_its_plan_once(
    tmp_path: Path, plans_built: list[Plan], mode: RunMode
) -> None:
    result = run_contract(
        RESEARCH, RESEARCH_CASES, store=str(tmp_path / "gaps.db"), judges=Judges(mode=mode)
    )
    assert result.summary.total_cases == 5
    judged = result.case("acct-001").claim("gaps_acknowledged")
    assert judged.status == ("pass" if mode == "replay" else "skipped")
    assert len(plans_built) == 1


@pytest.mark.parametrize("mode", ["replay", "off"])
def test_the_runner_and_its_judge_phase_share_the_plan(tmp_path: Path, mode: RunMode) -> None:
    target = str(tmp_path / "gaps.db")
    with SqliteStore(target) as store:
        assembled = assemble_run(
            load_contract(RESEARCH), store, target=target, judges=Judges(mode=mode)
        )
        phase = assembled.runner.model_phase
        assert isinstance(phase, JudgePhase | JudgesOff)
        assert phase.plan is assembled.runner.plan
        if isinstance(phase, JudgePhase):
            asyncio.run(phase.aclose())  # its connection to the store's judge cache
