"""Evaluating a prompt: run its contract, then score the stored verdicts in code.

``evaluate_prompt`` turns the request into a contract and cases
(``verifier.prompt_eval.contract``), runs them through ``verifier.run.assembly.run_contract``
(the prompt runs on the target model as a system under test, each check is a judge
claim, every result a gap row of one run, cached and replayable like any run), then
reads each check's status from the results and leaves the arithmetic to
``verifier.prompt_eval.scoring``.

A check that could not be answered (an error row: a failed call, a malformed verdict,
a replay without a recording) is neither a pass nor a finding: it is not scored, nor is
its component, so the evaluation is incomplete (no score, never passed) and each error
is named; nothing it did not answer is reported as a strength or a weakness.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any, Final

from verifier.contract.load import check_contract_source
from verifier.errors import ContractError, VerifierError
from verifier.prompt_eval.contract import (
    ADVERSARIAL,
    PROMPT_CASE,
    UNDERSTANDING,
    evaluation_cases,
    evaluation_contract,
)
from verifier.prompt_eval.models import (
    EvaluateRequest,
    EvaluateResponse,
    EvaluationReport,
    component_scores,
    response_for,
)
from verifier.prompt_eval.scoring import (
    REVERSE_CLAIMS,
    STANDARD_CHECKS,
    STRUCTURAL_CHECKS,
    Answer,
    Evaluation,
    ExampleResult,
    Verdict,
    evaluate,
)
from verifier.results import CaseResult, ClaimResult
from verifier.run.api import RunResult, run_contract
from verifier.run.assembly import Judges

__all__ = ["PromptEvalError", "PromptEvaluation", "evaluate_prompt"]

DEFAULT_CONTRACT_PATH: Final = Path("prompt-eval.yaml")


class PromptEvalError(VerifierError):
    """A request that cannot be evaluated (a model that is not pinned, a prompt that
    cannot be a template); one line per problem."""


@dataclass(frozen=True)
class PromptEvaluation:
    """An evaluated prompt.

    Attributes:
        request: What was evaluated.
        evaluation: The components and their exact arithmetic.
        response: The tool's answer (the seed's seven keys).
        understanding: Which sections of the prompt the outputs followed well or poorly
            (each with the example it was seen in) and the mean overall compliance.
        run_id: The run holding every check as a gap row.
        errors: Checks that could not be answered, one line each (never passes).
        notes: Things the user should know (why judges replay), one line each.
    """

    request: EvaluateRequest
    evaluation: Evaluation
    response: EvaluateResponse
    understanding: dict[str, Any]
    run_id: str
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    result: RunResult | None = field(default=None, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        return self.response.passed

    @property
    def verdict(self) -> Verdict:
        """``passed``, ``failed``, or ``incomplete`` when a check could not be answered."""
        return self.evaluation.verdict

    def report(self) -> EvaluationReport:
        """The answer with the verdict, each component's score, the run id, the
        understanding analysis and the errors."""
        return EvaluationReport(
            **self.response.model_dump(),
            verdict=self.verdict,
            components=component_scores(self.evaluation),
            run_id=self.run_id,
            understanding=self.understanding,
            errors=list(self.errors),
        )

    def feedback(self) -> str:
        """The seed's feedback text, then the errors, if any."""
        if not self.errors:
            return self.response.feedback
        listed = "\n".join(f"  - {line}" for line in self.errors)
        return (
            f"{self.response.feedback}\n\nNot answered ({len(self.errors)}; not scored, so "
            f"the evaluation is incomplete):\n{listed}"
        )


def evaluate_prompt(
    request: EvaluateRequest,
    *,
    store: str | os.PathLike[str] | None = None,
    judges: Judges | None = None,
    contract_path: Path | None = None,
    note: Callable[[str], None] | None = None,
) -> PromptEvaluation:
    """Runs the prompt on the request's examples, has the judge answer every check, and
    scores the result.

    Args:
        request: The prompt, its examples and the models.
        store: Where the run's gap rows go (default as ``run_contract``'s).
        judges: How the target and judge models are reached (default: replay or live
            as for any run; recordings are read only when ``judges.recordings`` names them).
        contract_path: Where the generated contract says it stands (a label in the
            store and reports; default ``prompt-eval.yaml``).
        note: Receives one-line notes for the user.

    Raises:
        PromptEvalError: A model is not a pinned id, or the prompt cannot be run.
        VerifierError: The store, the judges' keys or the recordings cannot be used.
    """
    path = contract_path or DEFAULT_CONTRACT_PATH
    loaded, diagnostics = check_contract_source(evaluation_contract(request), path)
    if loaded is None:
        problems = [d.message for d in diagnostics if d.severity == "error"]
        raise PromptEvalError("cannot evaluate this request: " + "; ".join(problems))
    judges = judges or Judges(recordings_beside_contract=False)
    try:
        result = run_contract(
            loaded,
            evaluation_cases(request),
            store=store,
            judges=judges,
            note=note,
            options_record={
                "prompt_eval": {"seed": request.seed, "batch_size": request.batch_size}
            },
        )
    except ContractError as exc:
        raise PromptEvalError(str(exc)) from None
    return scored(request, result)


def scored(request: EvaluateRequest, result: RunResult) -> PromptEvaluation:
    """The evaluation a finished run of ``request``'s contract gives."""
    cases = {case.case_id: case for case in result.cases}
    errors: list[str] = []
    examples = [_example(number, cases, errors) for number, _ in request.examples()]
    prompt_case = cases.get(PROMPT_CASE)
    structural = {
        name: _answer(_result(prompt_case, name), PROMPT_CASE, errors) for name in STRUCTURAL_CHECKS
    }
    critique = _result(prompt_case, ADVERSARIAL)
    weaknesses, suggestions, assessment = _critique(critique, errors)
    evaluation = evaluate(examples, structural, weaknesses, assessment)
    response = response_for(request, evaluation, suggestions)
    return PromptEvaluation(
        request=request,
        evaluation=evaluation,
        response=response,
        understanding=_understanding(request, cases),
        run_id=result.run_id,
        errors=tuple(errors),
        notes=result.notes,
        result=result,
    )


def _result(case: CaseResult | None, claim_id: str) -> ClaimResult | None:
    if case is None:
        return None
    try:
        return case.claim(claim_id)
    except KeyError:
        return None


def _answer(result: ClaimResult | None, case_id: str, errors: list[str]) -> Answer:
    """Whether a check passed; ``None``, and the reason noted, when it was not answered."""
    if result is not None and result.status in ("pass", "fail"):
        return result.status == "pass"
    why = result.reason if result is not None else "no result"
    claim = result.claim_id if result is not None else "?"
    errors.append(f"{case_id} {claim}: {why}")
    return None


def _example(number: int, cases: Mapping[str, CaseResult], errors: list[str]) -> ExampleResult:
    case_id = f"example-{number}"
    case = cases.get(case_id)
    if case is not None and _applies(_result(case, "semantic_match")):
        checks = {
            name: _answer(_result(case, name) or _missing(name), case_id, errors)
            for name in STANDARD_CHECKS
        }
        return ExampleResult(number, "positive", checks)
    faults: dict[str, Answer] = {}
    for check, claim in REVERSE_CLAIMS.items():
        avoided = _answer(_result(case, claim) or _missing(claim), case_id, errors)
        faults[check] = None if avoided is None else not avoided
    return ExampleResult(number, "negative", faults)


def _applies(result: ClaimResult | None) -> bool:
    """Whether a claim applied to its case (a not-applicable claim is skipped)."""
    return result is not None and not (
        result.status == "skipped" and result.reason.startswith("not applicable")
    )


def _missing(claim_id: str) -> ClaimResult:
    return ClaimResult(claim_id, "judge", "error", None, "no result (the case was not checked)", {})


def _answered(result: ClaimResult) -> dict[str, Any]:
    """What the judge answered, as the row's evidence keeps it."""
    answered = result.evidence.get("verdict", {}).get("verdict", {})
    return answered if isinstance(answered, dict) else {}


def _critique(
    result: ClaimResult | None, errors: list[str]
) -> tuple[list[str] | None, list[str], str]:
    """The critique's weaknesses, suggestions and assessment; no weaknesses at all
    (``None``, not scored) when it was not answered."""
    if _answer(result, PROMPT_CASE, errors) is None:
        return None, [], ""
    assert result is not None
    verdict = _answered(result)
    found = verdict.get("weaknesses", [])
    weaknesses = [str(item.get("weakness", "")) for item in found]
    suggestions = [str(item["suggestion"]) for item in found if item.get("suggestion")]
    return weaknesses, suggestions, str(verdict.get("assessment", ""))


def _understanding(request: EvaluateRequest, cases: Mapping[str, CaseResult]) -> dict[str, Any]:
    """Sections followed well and poorly across the examples, and the mean compliance."""
    well: list[dict[str, Any]] = []
    poorly: list[dict[str, Any]] = []
    overall: list[float] = []
    for number, _ in request.examples():
        result = _result(cases.get(f"example-{number}"), UNDERSTANDING)
        if result is None or result.status not in ("pass", "fail"):
            continue
        verdict = _answered(result)
        well += [{**item, "example": number} for item in verdict.get("well_followed", [])]
        poorly += [{**item, "example": number} for item in verdict.get("poorly_followed", [])]
        if result.score is not None:
            overall.append(result.score)
    return {
        "well_followed": well,
        "poorly_followed": poorly,
        "overall_compliance": round(fmean(overall), 4) if overall else None,
    }
