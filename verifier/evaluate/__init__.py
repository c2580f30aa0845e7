"""One output judged against a set of assertions: the PRD's single-evaluation API.

The input is ``{"agent_input", "agent_output", "assertions": [{"id", "instruction",
"criteria"}], "threshold"}`` (read and validated in :mod:`verifier.evaluate.request`).
Rather than a second code path, each assertion becomes a judge claim of an in-memory
contract whose judge groups by case (one call judges every assertion, as the PRD's
prompt does); the output is run as one case through the ordinary runner, so the
verdicts are cached, replayable and stored as gap rows like any other run. A batch of
them is :mod:`verifier.evaluate.batch`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from verifier._internal.canonical import canonical_json, sha256_hex
from verifier._internal.yaml_positions import Positions
from verifier.contract.load import LoadedContract
from verifier.contract.validation import validate_contract
from verifier.evaluate.request import (
    Assertion,
    EvaluateError,
    EvaluationInput,
    Threshold,
    decode_text,
    invalid_json,
    parse_evaluation,
    validate_evaluation,
)
from verifier.judge.config import JudgeChoice
from verifier.results import CaseResult

if TYPE_CHECKING:
    from verifier.judge.phase import JudgeMode

CONTRACT_ID: Final = "evaluate"
CASE_ID: Final = "evaluation"

__all__ = [
    "CASE_ID",
    "CONTRACT_ID",
    "Assertion",
    "EvaluateError",
    "Evaluation",
    "EvaluationInput",
    "Threshold",
    "decode_text",
    "evaluate",
    "evaluation_contract",
    "invalid_json",
    "parse_evaluation",
    "validate_evaluation",
]


def evaluation_contract(request: EvaluationInput, judge: JudgeChoice, path: Path) -> LoadedContract:
    """The in-memory contract: one judge claim per assertion, all for ``judge``.

    Its source is the canonical JSON of the contract document, so the same assertions
    and judge always give the same ``contract_sha256`` (and a store can re-run them).
    """
    document = {
        "contract": CONTRACT_ID,
        "version": 1,
        "llm_fields": ["output"],
        "judges": {judge.name: judge.spec.model_dump(mode="json", exclude_none=True)},
        "claims": [
            {
                "id": a.id,
                "judge": judge.name,
                "instruction": a.instruction,
                "criteria": list(a.criteria),
            }
            for a in request.assertions
        ],
    }
    source = canonical_json(document)
    contract = validate_contract(document)
    return LoadedContract(contract, path, source, sha256_hex(source), Positions())


@dataclass(frozen=True)
class Evaluation:
    """A finished evaluation: the case's results and where its gap rows went.

    Attributes:
        case: The evaluation's one case, judged.
        run_id: The run its gap rows belong to.
        threshold: The score the evaluation had to reach.
    """

    case: CaseResult
    run_id: str
    threshold: float = 1.0

    @property
    def passed(self) -> bool:
        """The score reached the threshold and no assertion is an error (as a run's case)."""
        return self.case.passed

    def as_json(self) -> dict[str, Any]:
        """The PRD's output shape (``pass`` beside the score), with ``errors`` and each
        result's status and triple."""
        case = self.case
        return {
            "score": round(case.score, 6),
            "pass": case.passed,
            "threshold": self.threshold,
            "passed": case.count("pass"),
            "failed": case.count("fail"),
            "errors": case.count("error"),
            "total": len(case.results),
            "results": [
                {
                    "id": r.claim_id,
                    "pass": r.status == "pass",
                    "reasoning": r.reason,
                    "status": r.status,
                    "judge": r.evidence.get("judge"),
                }
                for r in case.results
            ],
        }


def evaluate(
    request: EvaluationInput,
    judge: JudgeChoice,
    *,
    source: Path,
    store: str,
    mode: JudgeMode | None = None,
    recordings: Path | None = None,
    threshold: float | None = None,
    note: Callable[[str], None] = lambda _: None,
) -> Evaluation:
    """Judges ``request``'s output against its assertions and stores the gap rows.

    Args:
        request: The validated input.
        judge: The judge to ask.
        source: Where the input came from (recorded as the run's contract path unless
            the judge came from a config file, which ``prompt`` paths are relative to).
        store: The gap-row store target (as ``verifier run --store``).
        mode: ``live``, ``replay`` or ``record``; default ``live`` when the judge's
            API key is set, else ``replay``.
        recordings: Recorded verdicts read before the cache (written in ``record``).
        threshold: The score to reach; default: the request's own (1.0 unless it says).
        note: Receives one-line notes for the user (why the mode was chosen).

    Raises:
        VerifierError: The store, template or recordings cannot be used.
    """
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges

    loaded = evaluation_contract(request, judge, judge.config or source)
    case = {"id": CASE_ID, "input": request.agent_input, "output": request.agent_output}
    bar = request.threshold if threshold is None else threshold
    result = run_contract(
        loaded,
        [case],
        store=store,
        threshold=bar,
        judges=Judges(mode=mode, recordings=recordings, recordings_beside_contract=False),
        options_record={"evaluate": str(source), "judge": judge.name},
        # ``why`` names the API key that is not set (``--judges live`` is refused
        # without it); a replay reads only the recordings named by --recordings.
        note=lambda why: note(
            f"{why} (set it to call the judge: evaluations are then live; --recordings FILE "
            "replays the verdicts saved by --judges record --recordings FILE)"
        ),
    )
    return Evaluation(result.cases[0], result.run_id, bar)
