"""The evaluator tool's input and output, as its callers send and read them.

Input: ``{"prompt", "training_examples": [{"input", "expected_output"}],
"negative_examples": [{"input", "bad_output", "reason_why_bad"}], "model"}`` with at least
one example of either kind; ``judge_model`` (default: ``model``), ``batch_size`` and
``seed`` are optional. Output: ``{"prompt", "score", "passed", "feedback", "strengths",
"weaknesses", "suggestions"}``; ``score`` is ``null`` when the evaluation is incomplete
(a check the judge could not answer), and no unanswered check is a strength or weakness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from verifier.llm.providers.registry import route_model
from verifier.prompt_eval.scoring import STRUCTURAL_CHECKS, Evaluation, Verdict, shown

__all__ = [
    "ComponentScore",
    "EvaluateRequest",
    "EvaluateResponse",
    "EvaluationReport",
    "NegativeExample",
    "TrainingExample",
    "component_scores",
    "response_for",
]

_SUGGESTIONS: Final = {
    "has_role": "Say who the model should be (a role)",
    "has_task": "State the task: what to do with the input",
    "has_format": "Add output format specification",
    "has_constraints": "Set boundaries: rules, limits and what to do on bad input",
    "has_examples": "Include an example of an input and its expected output",
}
"""What each failed structural check suggests, in the order of the checks."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrainingExample(_Strict):
    """An input and the output the prompt should lead to."""

    input: Any
    expected_output: Any


class NegativeExample(_Strict):
    """An input, an output the prompt must not lead to, and why that output is bad."""

    input: Any
    bad_output: Any
    reason_why_bad: str = Field(min_length=1)


class EvaluateRequest(_Strict):
    """What to evaluate: the prompt, its examples and the models.

    Attributes:
        prompt: The prompt under evaluation (its text, run on each example's input).
        training_examples: Positive examples (standard mode).
        negative_examples: Known bad outputs (reverse mode); both kinds: combined mode.
        model: The target model, which runs the prompt; an exact, pinned id.
        judge_model: The model that answers the checks (default: ``model``).
        batch_size: Examples evaluated, drawn at random with ``seed`` (default: all).
        seed: The seed of that draw, so the same request draws the same examples.
    """

    prompt: str = Field(min_length=1)
    training_examples: list[TrainingExample] = Field(default_factory=list)
    negative_examples: list[NegativeExample] = Field(default_factory=list)
    model: str = Field(min_length=1)
    judge_model: str | None = Field(default=None, min_length=1)
    batch_size: int | None = Field(default=None, ge=1)
    seed: int = 0

    @field_validator("model", "judge_model")
    @classmethod
    def _routed(cls, value: str | None) -> str | None:
        if value is not None:
            route_model(value)  # an unknown provider prefix is refused here, in one line
        return value

    @model_validator(mode="after")
    def _has_an_example(self) -> EvaluateRequest:
        if not self.training_examples and not self.negative_examples:
            raise ValueError("give at least one of training_examples or negative_examples")
        return self

    @property
    def judge(self) -> str:
        """The judge model: ``judge_model``, else the target ``model``."""
        return self.judge_model or self.model

    def examples(self) -> list[tuple[int, TrainingExample | NegativeExample]]:
        """The examples to evaluate, numbered from 1 in the order given (positive ones
        first): all of them, or ``batch_size`` drawn with ``seed``, kept in that order."""
        numbered: list[tuple[int, TrainingExample | NegativeExample]] = list(
            enumerate([*self.training_examples, *self.negative_examples], start=1)
        )
        if self.batch_size is None or self.batch_size >= len(numbered):
            return numbered
        drawn = random.Random(self.seed).sample(range(len(numbered)), self.batch_size)
        return [numbered[i] for i in sorted(drawn)]


class EvaluateResponse(_Strict):
    """The evaluation as the tool returns it."""

    prompt: str
    score: float | None = Field(
        description="The score over 100 points as a fraction; null when the evaluation "
        "is incomplete (a check the judge could not answer)."
    )
    passed: bool
    feedback: str
    strengths: list[str]
    weaknesses: list[str]
    suggestions: list[str]


class ComponentScore(_Strict):
    """One component of the score, or why it is not scored."""

    weight: float
    score: float | None
    not_scored: str | None = None


class EvaluationReport(EvaluateResponse):
    """The tool's answer with what the record adds: the verdict (``incomplete`` when a
    check could not be answered), each component's score, the run holding every check,
    the prompt-understanding analysis and the checks that could not be answered."""

    verdict: Verdict
    components: dict[str, ComponentScore]
    run_id: str
    understanding: dict[str, Any]
    errors: list[str]


def response_for(
    request: EvaluateRequest, evaluation: Evaluation, suggestions: Sequence[str] = ()
) -> EvaluateResponse:
    """The tool's answer: the score and feedback of ``evaluation``; strengths are the
    structural checks passed, weaknesses those the judge answered no to and then the
    critique's, and suggestions one per check missed and then the critique's
    ``suggestions``. A check not answered is neither a strength nor a weakness."""
    structural = evaluation.structural
    missed = [name for name in STRUCTURAL_CHECKS if structural[name] is False]
    return EvaluateResponse(
        prompt=request.prompt,
        score=evaluation.score,
        passed=evaluation.passed,
        feedback=evaluation.feedback(),
        strengths=[_said(name) for name in STRUCTURAL_CHECKS if structural[name] is True],
        weaknesses=[f"Missing: {_said(name).lower()}" for name in missed]
        + list(evaluation.weaknesses or ()),
        suggestions=[_SUGGESTIONS[name] for name in missed] + list(suggestions),
    )


def component_scores(evaluation: Evaluation) -> dict[str, ComponentScore]:
    """Each component's weight and score over 1 (shown points over 100), or why it is
    not scored."""
    return {
        c.name: ComponentScore(
            weight=float(c.weight),
            score=None if c.points is None else shown(c.points) / 100,
            not_scored=c.not_scored,
        )
        for c in evaluation.components
    }


def _said(check: str) -> str:
    """``has_role`` as a person says it: ``Has role``."""
    return check.replace("_", " ").capitalize()
