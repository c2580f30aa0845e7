"""A stand-in provider answers for every judge of a run, so recording needs no key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifier.contract.load import load_contract
from verifier.contract.models import JudgeClaim
from verifier.run.api import run_contract
from verifier.run.assembly import Judges, JudgesUnavailable
from verifier.scaffold.files import plan_scaffold, write_scaffold
from verifier.scaffold.verdicts import SERVED_MODEL, StarterJudge


@pytest.fixture
def starter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The starter project's contract and cases, without their recordings, and no key."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    scaffold = plan_scaffold(tmp_path / "evals")
    write_scaffold(scaffold)
    scaffold.recordings.unlink()
    return scaffold.contract, scaffold.cases


def test_a_stand_in_records_every_verdict_without_a_key(
    tmp_path: Path, starter: tuple[Path, Path]
) -> None:
    contract, cases = starter
    by_id = {c["id"]: c for c in map(json.loads, cases.read_text().splitlines())}
    claims = [c for c in load_contract(contract).contract.claims if isinstance(c, JudgeClaim)]
    recordings = tmp_path / "recorded.jsonl"
    judges = Judges(mode="record", recordings=recordings, stand_in=StarterJudge(by_id, claims))
    result = run_contract(contract, cases, store=str(tmp_path / "gaps.db"), judges=judges)
    assert result.mode == "record"
    assert (result.summary.total_cases, result.summary.passed_cases) == (4, 4)
    judged = [r for case in result.cases for r in case.results if r.kind != "rubric"]
    assert len(judged) == 8
    assert {r.evidence["judge"]["model_id"] for r in judged} == {SERVED_MODEL}
    # One reply per judge claim and two per comparison (both orders), all recorded.
    recorded = [json.loads(line) for line in recordings.read_text().splitlines()]
    assert len(recorded) == 4 + 2 * 4
    assert {entry["reply"]["served_model"] for entry in recorded} == {SERVED_MODEL}


def test_without_a_stand_in_recording_needs_the_key(
    tmp_path: Path, starter: tuple[Path, Path]
) -> None:
    contract, cases = starter
    with pytest.raises(JudgesUnavailable, match="ANTHROPIC_API_KEY is not set"):
        run_contract(contract, cases, store=str(tmp_path / "gaps.db"), judges=Judges(mode="record"))
    assert not (tmp_path / "gaps.db").exists()
