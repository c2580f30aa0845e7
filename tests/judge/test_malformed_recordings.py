"""A recorded or cached verdict that does not parse: replay says it is malformed (never
that it is missing); a live run asks the judge again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_judge_phase import KEY, one_case
from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, new_run_id, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.judge.phase import MALFORMED_RECORDING, NO_RECORDING
from verifier.judge.setup import make_judge_phase
from verifier.judge.stats import JudgeStats
from verifier.llm.cache import CachedReply, SqliteJudgeCache
from verifier.llm.limits import CallLimits
from verifier.llm.types import CallMode

NAME = "support-answers"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Any:
    with MessagesServer(default=brain) as running:
        for name in ("ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.base_url)
        yield running


def judged(
    tmp_path: Path, mode: CallMode, recordings: Path | None = None
) -> tuple[dict[str, Any], JudgeStats]:
    """One run of the one-claim contract in ``tmp_path``: the row of claim c1 on case k0."""
    loaded = load_contract(tmp_path / "phase.yaml")
    db = tmp_path / "gaps.db"
    run_id = new_run_id()
    with SqliteStore(db) as store:
        plan = build_plan(loaded)
        phase = make_judge_phase(
            loaded,
            plan=plan,
            mode=mode,
            store_path=str(db),
            recordings=recordings,
            limits=CallLimits(timeout=5.0),
            run_id=run_id,
        )
        runner = Runner(
            loaded, store, plan=plan, model_phase=phase, options=RunOptions(run_id=run_id)
        )
        run_sync(runner, read_cases(tmp_path / "cases.jsonl"))
        (row,) = (json.loads(r.body) for r in store.iter_rows(run_id) if r.claim_id == "c1")
    return row, phase.stats


def no_longer_a_verdict(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with its verdict's ``pass`` written as a string, as a hand edit might."""
    entry["reply"]["tool_input"]["results"][0]["pass"] = "false"
    return entry


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (('"pass":true', '"pass":"false"'), "results.0.pass: Input should be a valid boolean"),
        (
            ('"id":"answers_the_question"', '"id":"answers_the_questions"'),
            "no verdict for answers_the_question; verdicts for unknown ids answers_the_questions",
        ),
    ],
)
def test_a_recording_that_does_not_parse_is_named_malformed_not_missing(
    tmp_path: Path, edit: tuple[str, str], problem: str
) -> None:
    assert verifier("init", "evals", cwd=tmp_path).returncode == 0
    recordings = tmp_path / "evals" / f"{NAME}.recordings.jsonl"
    lines = recordings.read_text(encoding="utf-8").splitlines()
    number, line = next(
        (n, line)
        for n, line in enumerate(lines, start=1)
        if '"id":"answers_the_question"' in line and '"pass":true' in line
    )
    lines[number - 1] = line.replace(*edit)
    recordings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ran = verifier(
        "run", f"evals/{NAME}.yaml", "--cases", f"evals/{NAME}.cases.jsonl", "--format", "json",
        cwd=tmp_path, clear_prefixes=("ANTHROPIC_", "OPENAI_"),
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    errors = [
        result
        for case in json.loads(ran.stdout)["cases"]
        for result in case["results"]
        if result["status"] == "error"
    ]
    assert len(errors) == 1
    reason = errors[0]["reasoning"]
    assert reason.startswith(f"{MALFORMED_RECORDING}: {problem}"), reason
    assert f"evals/{NAME}.recordings.jsonl line {number}; claim answers_the_question" in reason
    assert NO_RECORDING not in reason


def test_a_malformed_recording_is_asked_again_live_and_replaced(
    tmp_path: Path, server: MessagesServer
) -> None:
    one_case(tmp_path)
    recordings = tmp_path / "phase.recordings.jsonl"
    recorded, _ = judged(tmp_path, "record", recordings)
    assert recorded["status"] == "pass"
    entry = json.loads(recordings.read_text(encoding="utf-8"))
    recordings.write_text(json.dumps(no_longer_a_verdict(entry)) + "\n", encoding="utf-8")

    replayed, _ = judged(tmp_path, "replay", recordings)
    assert replayed["status"] == "error"
    assert replayed["reason"].startswith(
        f"{MALFORMED_RECORDING}: results.0.pass: Input should be a valid boolean"
    )
    assert f"({recordings} line 1; claim c1, case k0)" in replayed["reason"]
    assert replayed["evidence"]["raw_reply"]["tool_input"]["results"][0]["pass"] == "false"

    live, stats = judged(tmp_path, "live", recordings)
    assert live["status"] == "pass" and stats.calls == 1 and stats.cached == 0
    assert len(server.model_calls()) == 2
    again, _ = judged(tmp_path, "replay", recordings)  # the new verdict replaced it
    assert again["status"] == "pass"


def test_a_cache_entry_that_does_not_parse_is_malformed_in_replay_and_asked_again_live(
    tmp_path: Path, server: MessagesServer
) -> None:
    one_case(tmp_path)
    first, _ = judged(tmp_path, "live")
    assert first["status"] == "pass"
    # An entry written through the cache itself (so sealed) that later rules refuse.
    db = tmp_path / "gaps.db"
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT entry FROM judge_cache").fetchone()
    entry = CachedReply.from_json(no_longer_a_verdict(json.loads(text)))
    cache = SqliteJudgeCache(db)
    cache.put(entry)
    cache.close()

    replayed, _ = judged(tmp_path, "replay")
    assert replayed["status"] == "error"
    assert replayed["reason"].startswith(f"{MALFORMED_RECORDING}: results.0.pass")
    assert "(the judge cache; claim c1, case k0)" in replayed["reason"]
    assert NO_RECORDING not in replayed["reason"]

    live, stats = judged(tmp_path, "live")
    assert live["status"] == "pass" and stats.calls == 1
    assert len(server.model_calls()) == 2
    cached, stats = judged(tmp_path, "live")
    assert cached["status"] == "pass" and stats.cached == 1 and stats.calls == 0
