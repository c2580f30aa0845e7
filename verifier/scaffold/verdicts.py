"""The starter project's judge verdicts, written by hand, and recording them.

The starter contract's judge claims must run offline on its cases, without a key, so
their verdicts are written here rather than asked of a model. Every reply names its
served model ``example/hand-written``, so no gap row can pass for a real model's
verdict. ``record_verdicts`` runs the contract over its cases in ``record`` mode with
a stand-in judge answering from these tables, which writes the recordings through the
same code, with the same cache keys, as ``verifier run --judges record``.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from verifier.cases import CaseLine, read_cases
from verifier.contract.load import LoadedContract, load_contract
from verifier.contract.models import JudgeClaim
from verifier.engine.runner import RunOptions
from verifier.gaps.store import open_store
from verifier.judge.phase import JudgePhase
from verifier.llm.limits import CallLimits
from verifier.llm.types import ModelProvider, ModelReply, ModelRequest, ProviderError
from verifier.run.assembly import Judges, assemble_run

SERVED_MODEL: Final = "example/hand-written"

# Case id -> the verdict on every pass/fail claim, and which answer a reader prefers
# ("output": the case's output, "other": the answer it is compared with, or "tie"),
# each with its reason.
ANSWERS: Final[dict[str, tuple[bool, str]]] = {
    "late-parcel": (True, "Gives the tracking path and what happens after 5 working days."),
    "return-shoes": (True, "Says worn shoes return only when faulty, and how to claim."),
    "change-email": (True, "Gives the steps and explains the confirmation link."),
    "cancel-order": (True, "Says when cancelling works and what to do once dispatched."),
}
PREFERENCES: Final[dict[str, tuple[str, str]]] = {
    "late-parcel": ("output", "The previous answer gives no way to track or resolve it."),
    "return-shoes": ("tie", "Both state the same policy; the current one adds how to claim."),
    "change-email": ("output", "The previous answer names no steps."),
    "cancel-order": ("tie", "Both give the same steps in nearly the same words."),
}

_RESPONSE: Final = re.compile(r"<(response-[12])-[0-9a-f]+>\n(.*?)\n</\1-[0-9a-f]+>", re.S)


def preference(request: ModelRequest, output: Any, preferred: str, why: str) -> dict[str, Any]:
    """A pairwise answer that prefers ``output`` (``preferred`` "output"), the other
    response ("other") or neither ("tie"), in whichever position the request shows it,
    so both presentation orders get the same verdict."""
    shown = dict(_RESPONSE.findall(request.user))
    first = "1" if shown.get("response-1") == output else "2"
    other = "2" if first == "1" else "1"
    return {"winner": {"output": first, "other": other, "tie": "tie"}[preferred], "reasoning": why}


class HandWrittenProvider:
    """A stand-in provider answering from verdicts written by hand: it finds the case
    a request is about by its input text and asks ``answer`` for the tool input."""

    name = "anthropic"

    def __init__(self, cases: dict[str, dict[str, Any]]) -> None:
        self.cases = cases

    def answer(self, request: ModelRequest, case_id: str, case: dict[str, Any]) -> dict[str, Any]:
        """The verdict tool's input for ``request`` about the case ``case_id``."""
        raise NotImplementedError

    async def complete(self, request: ModelRequest, *, timeout: float) -> ModelReply:
        case_id, case = self._case(request)
        return ModelReply(
            served_model=SERVED_MODEL,
            stop_reason="tool_use",
            tool_input=self.answer(request, case_id, case),
            response_id=f"hand-written-{case_id}-{request.verdict}",
        )

    async def aclose(self) -> None:
        return None

    def _case(self, request: ModelRequest) -> tuple[str, dict[str, Any]]:
        for case_id, case in self.cases.items():
            if str(case.get("input", "")) in request.user:
                return case_id, case
        raise ProviderError("no case written by hand matches this request", retryable=False)


class StarterJudge(HandWrittenProvider):
    """The starter project's judges, answering from ``ANSWERS`` and ``PREFERENCES``."""

    def __init__(self, cases: dict[str, dict[str, Any]], claims: list[JudgeClaim]) -> None:
        super().__init__(cases)
        self.claims = claims

    def answer(self, request: ModelRequest, case_id: str, case: dict[str, Any]) -> dict[str, Any]:
        if request.verdict == "pairwise":
            preferred, why = PREFERENCES[case_id]
            return preference(request, case["output"], preferred, why)
        ok, why = ANSWERS[case_id]
        asked = [c for c in self.claims if json.dumps(c.id) in request.user]
        return {"results": [_result(claim, ok, why) for claim in asked]}


# Case id of the Likert starter -> its scores on relevance, accuracy, completeness,
# format compliance and safety, and why. The first are the scores of a worked example
# of the rubric (overall 4.8); the last case's overall, 1.8, is one to revise.
LIKERT_SCORES: Final[dict[str, tuple[tuple[int, int, int, int, int], str]]] = {
    "review-missing-types": (
        (5, 4, 5, 5, 5),
        "Finds the three problems asked about; the statistics.mean suggestion overstates it.",
    ),
    "review-well-typed": (
        (5, 5, 4, 4, 5),
        "Correctly finds only a minor docstring gap; ends in prose after the list.",
    ),
    "review-rewritten": (
        (2, 2, 1, 1, 3),
        "Rewrites the function instead of reviewing it; no findings, no severities.",
    ),
}
LIKERT_DIMENSIONS: Final = (
    "relevance",
    "accuracy",
    "completeness",
    "format_compliance",
    "safety_constraints",
)


class LikertJudge(HandWrittenProvider):
    """The Likert starter's judge, answering from ``LIKERT_SCORES``."""

    def answer(self, request: ModelRequest, case_id: str, case: dict[str, Any]) -> dict[str, Any]:
        scores, why = LIKERT_SCORES[case_id]
        asked = [
            {"id": claim, "reasoning": why, "score": score}
            for claim, score in zip(LIKERT_DIMENSIONS, scores, strict=True)
            if json.dumps(claim) in request.user
        ]
        return {"results": asked}


def _result(claim: JudgeClaim, ok: bool, why: str) -> dict[str, Any]:
    criteria = [{"criterion": c, "met": ok, "reasoning": why} for c in claim.criteria]
    return {"id": claim.id, "criteria": criteria, "pass": ok, "reasoning": why}


async def record_verdicts(
    contract: Path, cases: Path, recordings: Path, *, template: str = "starter"
) -> None:
    """Runs ``contract`` over ``cases`` against the hand-written judge of ``template``,
    writing every verdict to ``recordings``.

    Raises:
        VerifierError: The contract or the cases cannot be used.
    """
    loaded = load_contract(contract)
    by_id = {line.case_id: line.case for line in read_cases(cases) if line.case is not None}
    claims = [c for c in loaded.contract.claims if isinstance(c, JudgeClaim)]
    judge: HandWrittenProvider = (
        LikertJudge(by_id) if template == "likert" else StarterJudge(by_id, claims)
    )
    await record_replies(loaded, read_cases(cases), recordings, judge, run_id="starter-recording")


async def record_replies(
    loaded: LoadedContract,
    cases: Iterable[CaseLine],
    recordings: Path,
    judge: ModelProvider,
    *,
    run_id: str,
) -> int:
    """Runs ``loaded`` over ``cases`` in ``record`` mode with ``judge`` answering for
    every judge of the contract, and returns how many replies it recorded. The run is
    assembled as every run is; its gap rows go to a scratch store, then away: the
    recordings are what is kept.
    """
    judges = Judges(
        mode="record", recordings=recordings, limits=CallLimits(concurrency=1), stand_in=judge
    )
    with tempfile.TemporaryDirectory() as scratch:
        target = str(Path(scratch) / "gaps.db")
        with open_store(target) as store:
            assembled = assemble_run(
                loaded, store, target=target, judges=judges, options=RunOptions(run_id=run_id)
            )
            await assembled.runner.run(cases)
    phase = assembled.runner.model_phase
    return phase.stats.calls if isinstance(phase, JudgePhase) else 0
