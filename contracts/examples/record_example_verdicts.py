"""Writes the example contracts' recordings: judge verdicts written by hand.

The examples' judge claims must run offline, so their verdicts were written by hand
(the tables below) rather than by a model. Every recorded reply names its served model
"example/hand-written", so no gap row can be mistaken for a real model's verdict.
The script runs each example through verifier in `record` mode with a stand-in
provider that answers from the tables (as `verifier init` records its starter
project's verdicts), so the recordings' cache keys are exactly the ones a replay
computes. Rerun it after changing an example's judge claims or cases:

    python contracts/examples/record_example_verdicts.py
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verifier.cases import CaseLine, read_cases
from verifier.contract.load import load_contract
from verifier.gaps.store import open_store
from verifier.llm.replies import default_recordings
from verifier.llm.types import ModelReply, ModelRequest
from verifier.run.api import run_contract
from verifier.run.assembly import Judges
from verifier.run.baseline import join_baseline, read_baseline
from verifier.scaffold.verdicts import HandWrittenProvider, preference, record_replies
from verifier.trial import Candidate, trial_judge

HERE = Path(__file__).resolve().parent

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

# answer-comparison: case id -> which answer a reader prefers ("output": the candidate's,
# "other": the baseline's, or "tie") and why. The stand-in judge answers both
# presentation orders consistently.
PREFERENCES: dict[str, tuple[str, str]] = {
    "refund-window": ("output", "Adds the condition (unworn) and where to start the return."),
    "password-reset": ("output", "Adds when the link arrives and when it expires."),
    "shipping-abroad": ("other", "A bare 'Yes.' omits delivery time and duties."),
    "cancel-order": ("tie", "Both give the same steps in nearly the same words."),
}


# The successor the guide "Your judge's model is retiring" trials for judge strict, and
# where it judges otherwise: one brief's tone scored a point lower (it then fails), two
# others a point apart without changing their verdict.
SUCCESSOR = "claude-sonnet-4-6"
SUCCESSOR_TONE: dict[str, tuple[int, str]] = {
    "acct-002": (5, "Professional, concise and specific; reads as written for an executive."),
    "acct-004": (3, "Clear but list-like; reads as notes rather than a brief."),
    "acct-005": (1, "A placeholder fragment; nothing an executive could read."),
}


class HandWrittenJudge(HandWrittenProvider):
    """Answers each request from the tables above."""

    def answer(self, request: ModelRequest, case_id: str, case: dict[str, Any]) -> dict[str, Any]:
        if request.verdict == "pairwise":
            preferred, why = PREFERENCES[case_id]
            return preference(request, case["output"], preferred, why)
        if request.verdict == "scale":
            score, why = BRIEFS[case_id]["tone"]
            return {"results": [{"id": "executive_tone", "score": score, "reasoning": why}]}
        ok, why = BRIEFS[case_id]["gaps"]
        claim = load_contract(HERE / "account-research.yaml").contract.claim("gaps_acknowledged")
        criteria = [{"criterion": c, "met": ok, "reasoning": why} for c in claim.criteria]
        return {
            "results": [
                {"id": "gaps_acknowledged", "criteria": criteria, "pass": ok, "reasoning": why}
            ]
        }


async def record(contract_name: str, cases_name: str, baseline_name: str | None = None) -> None:
    contract = HERE / contract_name
    cases_path = HERE / cases_name
    stream: Iterator[CaseLine] = read_cases(cases_path)
    if baseline_name:
        stream = join_baseline(stream, read_baseline(HERE / baseline_name))
    by_id = {
        json.loads(line)["id"]: json.loads(line)
        for line in cases_path.read_text(encoding="utf-8").splitlines()
    }
    recordings = default_recordings(contract)
    recordings.unlink(missing_ok=True)
    calls = await record_replies(
        load_contract(contract),
        stream,
        recordings,
        HandWrittenJudge(by_id),
        run_id="example-recording",
    )
    print(f"wrote {recordings.name}: {calls} verdicts for {len(by_id)} cases")


class HandWrittenSuccessor(HandWrittenJudge):
    """The successor: the judge's verdicts but for ``SUCCESSOR_TONE``, served under a
    model name of its own, so its rows are told apart from the judge's."""

    def answer(self, request: ModelRequest, case_id: str, case: dict[str, Any]) -> dict[str, Any]:
        if request.verdict == "scale" and case_id in SUCCESSOR_TONE:
            score, why = SUCCESSOR_TONE[case_id]
            return {"results": [{"id": "executive_tone", "score": score, "reasoning": why}]}
        return super().answer(request, case_id, case)

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        reply = await super().complete(request, timeout=timeout)
        return dataclasses.replace(reply, served_model="example/hand-written-successor")


def record_successor() -> None:
    """Appends the successor's answers to account-research's recordings: to the
    requests a trial asks (one claim each) and to those a run pinned to it asks."""
    contract = HERE / "account-research.yaml"
    cases = HERE / "account-research.cases.jsonl"
    recordings = default_recordings(contract)
    by_id = {
        json.loads(line)["id"]: json.loads(line)
        for line in cases.read_text(encoding="utf-8").splitlines()
    }
    successor = HandWrittenSuccessor(by_id)
    with tempfile.TemporaryDirectory() as scratch:
        target = str(Path(scratch) / "gaps.db")
        run_contract(
            contract, cases, store=target, judges=Judges(mode="replay", recordings=recordings)
        )
        with open_store(target) as store:
            report = trial_judge(
                store,
                Candidate("strict", SUCCESSOR, recordings=recordings, stand_in=successor),
                sample=1000,
            )
        moved = Path(scratch) / contract.name
        text = contract.read_text(encoding="utf-8").replace("claude-haiku-4-5-20251001", SUCCESSOR)
        moved.write_text(text, encoding="utf-8")
        calls = asyncio.run(
            record_replies(
                load_contract(moved),
                read_cases(cases),
                recordings,
                successor,
                run_id="example-recording",
            )
        )
    print(
        f"appended to {recordings.name}: {len(report.verdicts)} trial answers and {calls} verdicts of {SUCCESSOR}"
    )


async def main() -> None:
    await record("account-research.yaml", "account-research.cases.jsonl")
    await record(
        "answer-comparison.yaml",
        "answer-comparison.candidate.jsonl",
        "answer-comparison.baseline.jsonl",
    )


if __name__ == "__main__":
    asyncio.run(main())
    record_successor()  # after the judge's own verdicts, which its trial re-asks
