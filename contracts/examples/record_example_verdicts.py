"""Writes account-research.recordings.jsonl: hand-written judge verdicts for the example.

The example contract's judge claims must run offline, so their verdicts were written
by hand (below) rather than by a model. Every recorded reply names its served model
as "example/hand-written", so no gap row can be mistaken for a real model's verdict.
This script runs the example through verifier in `record` mode with a stand-in
provider that answers from the table, so the recordings' cache keys are exactly the
ones a replay computes. Rerun it after changing the contract's judge claims or cases:

    python contracts/examples/record_example_verdicts.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.gaps.sqlite import SqliteStore
from verifier.judge.limits import CallLimits
from verifier.judge.setup import make_judge_phase
from verifier.judge.types import JudgeReply, JudgeRequest, Usage
from verifier.runner import Runner, RunOptions

HERE = Path(__file__).resolve().parent
CONTRACT = HERE / "account-research.yaml"
CASES = HERE / "account-research.cases.jsonl"
RECORDINGS = HERE / "account-research.recordings.jsonl"
SERVED_MODEL = "example/hand-written"

# case id -> (gaps_acknowledged: pass, reasoning) and (executive_tone: score, reasoning)
VERDICTS: dict[str, dict[str, Any]] = {
    "acct-001": {
        "gaps": (True, "States that no call data exists for 30 days and invents no sentiment."),
        "tone": (5, "Formal and specific; every sentence carries a fact or a recommendation."),
    },
    "acct-002": {
        "gaps": (True, "No source was missing, and every figure is attributed."),
        "tone": (4, "Professional and concise; one long sentence but no casual phrasing."),
    },
    "acct-003": {
        "gaps": (False, "Guesses seat growth and revenue although CRM data was missing."),
        "tone": (2, "Casual phrasing ('pretty solid', 'super excited') throughout."),
    },
    "acct-004": {
        "gaps": (True, "Says CRM data is unavailable for a new lead and leaves ARR unknown."),
        "tone": (4, "Formal and clear; slightly list-like but appropriate."),
    },
    "acct-005": {
        "gaps": (False, "Leaves a TODO instead of stating what data is missing."),
        "tone": (2, "A fragment with a placeholder; not a brief an executive could use."),
    },
}


class HandWrittenJudge:
    """Answers each request from VERDICTS, finding the case by its input text."""

    name = "anthropic"

    def __init__(self, inputs: dict[str, str]) -> None:
        self.inputs = inputs

    async def complete(self, request: JudgeRequest, *, timeout: float) -> JudgeReply:
        case_id = next(cid for text, cid in self.inputs.items() if text in request.user)
        verdict = VERDICTS[case_id]
        if request.verdict == "scale":
            score, why = verdict["tone"]
            answer: dict[str, Any] = {"results": [{"id": "executive_tone", "score": score, "reasoning": why}]}
        else:
            ok, why = verdict["gaps"]
            claim = load_contract(CONTRACT).contract.claim("gaps_acknowledged")
            criteria = [{"criterion": c, "met": ok, "reasoning": why} for c in claim.criteria]
            answer = {"results": [{"id": "gaps_acknowledged", "criteria": criteria, "pass": ok, "reasoning": why}]}
        return JudgeReply(
            served_model=SERVED_MODEL,
            stop_reason="tool_use",
            tool_input=answer,
            usage=Usage(),
            response_id=f"hand-written-{case_id}-{request.verdict}",
        )

    async def aclose(self) -> None:
        return None


async def main() -> None:
    loaded = load_contract(CONTRACT)
    inputs = {}
    for line in CASES.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        inputs[case["input"]] = case["id"]
    RECORDINGS.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as scratch, SqliteStore(Path(scratch) / "gaps.db") as store:
        phase = make_judge_phase(
            loaded, mode="record", store_path=None, recordings=RECORDINGS,
            limits=CallLimits(concurrency=1), run_id="example-recording",
        )
        phase.providers = {"strict": HandWrittenJudge(inputs)}
        runner = Runner(loaded, store, model_phase=phase, options=RunOptions(run_id="example-recording"))
        summary = await runner.run(read_cases(CASES))
    print(f"wrote {RECORDINGS.name}: {phase.stats.calls} verdicts for {summary.total_cases} cases")


if __name__ == "__main__":
    asyncio.run(main())
