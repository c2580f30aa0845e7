"""Writes the example contracts' recordings: judge verdicts written by hand.

The examples' judge claims must run offline, so their verdicts were written by hand
(the tables below) rather than by a model. Every recorded reply names its served model
"example/hand-written", so no gap row can be mistaken for a real model's verdict.
The script runs each example through verifier in `record` mode with a stand-in
provider that answers from the tables, so the recordings' cache keys are exactly the
ones a replay computes. Rerun it after changing an example's judge claims or cases:

    python contracts/examples/record_example_verdicts.py
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verifier.cases import CaseLine, join_baseline, read_cases
from verifier.contract.load import load_contract
from verifier.gaps.sqlite import SqliteStore
from verifier.judge.limits import CallLimits
from verifier.judge.setup import default_recordings, make_judge_phase
from verifier.judge.types import JudgeReply, JudgeRequest, Usage
from verifier.runner import Runner, RunOptions

HERE = Path(__file__).resolve().parent
SERVED_MODEL = "example/hand-written"

# account-research: case id -> gaps_acknowledged (pass, why) and executive_tone (1-5, why)
BRIEFS: dict[str, dict[str, Any]] = {
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

# answer-comparison: case id -> which answer a reader prefers ("candidate", "baseline"
# or "tie") and why. The stand-in judge answers both presentation orders consistently.
PREFERENCES: dict[str, tuple[str, str]] = {
    "refund-window": ("candidate", "Adds the condition (unworn) and where to start the return."),
    "password-reset": ("candidate", "Adds when the link arrives and when it expires."),
    "shipping-abroad": ("baseline", "A bare 'Yes.' omits delivery time and duties."),
    "cancel-order": ("tie", "Both give the same steps in nearly the same words."),
}

_RESPONSE = re.compile(r"<(response-[12])-[0-9a-f]+>\n(.*?)\n</\1-[0-9a-f]+>", re.S)


class HandWrittenJudge:
    """Answers each request from the tables, finding the case by its input text."""

    name = "anthropic"

    def __init__(self, cases: dict[str, dict[str, Any]]) -> None:
        self.cases = cases

    def _case(self, request: JudgeRequest) -> tuple[str, dict[str, Any]]:
        for case_id, case in self.cases.items():
            if str(case.get("input", "")) in request.user:
                return case_id, case
        raise LookupError("no example case matches this request")

    async def complete(self, request: JudgeRequest, *, timeout: float) -> JudgeReply:
        case_id, case = self._case(request)
        answer: dict[str, Any]
        if request.verdict == "pairwise":
            preferred, why = PREFERENCES[case_id]
            shown = dict(_RESPONSE.findall(request.user))
            candidate_first = shown.get("response-1") == case["output"]
            position = {"candidate": "1" if candidate_first else "2",
                        "baseline": "2" if candidate_first else "1", "tie": "tie"}[preferred]
            answer = {"winner": position, "reasoning": why}
        elif request.verdict == "scale":
            score, why = BRIEFS[case_id]["tone"]
            answer = {"results": [{"id": "executive_tone", "score": score, "reasoning": why}]}
        else:
            ok, why = BRIEFS[case_id]["gaps"]
            claim = load_contract(HERE / "account-research.yaml").contract.claim("gaps_acknowledged")
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


async def record(contract_name: str, cases_name: str, baseline_name: str | None = None) -> None:
    contract = HERE / contract_name
    loaded = load_contract(contract)
    cases_path = HERE / cases_name

    def cases() -> Iterator[CaseLine]:
        stream = read_cases(cases_path)
        return join_baseline(stream, HERE / baseline_name) if baseline_name else stream

    by_id = {json.loads(line)["id"]: json.loads(line) for line in cases_path.read_text(encoding="utf-8").splitlines()}
    recordings = default_recordings(contract)
    recordings.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as scratch, SqliteStore(Path(scratch) / "gaps.db") as store:
        phase = make_judge_phase(
            loaded, mode="record", store_path=None, recordings=recordings,
            limits=CallLimits(concurrency=1), run_id="example-recording",
        )
        phase.providers = {"strict": HandWrittenJudge(by_id)}
        runner = Runner(loaded, store, model_phase=phase, options=RunOptions(run_id="example-recording"))
        summary = await runner.run(cases())
    print(f"wrote {recordings.name}: {phase.stats.calls} verdicts for {summary.total_cases} cases")


async def main() -> None:
    await record("account-research.yaml", "account-research.cases.jsonl")
    await record("answer-comparison.yaml", "answer-comparison.candidate.jsonl", "answer-comparison.baseline.jsonl")


if __name__ == "__main__":
    asyncio.run(main())
