"""The evaluator tool's request and answer: what is accepted, which examples are drawn,
and the answer's shape."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.prompt_eval.test_scoring import positive, structure
from verifier.prompt_eval.models import EvaluateRequest, response_for
from verifier.prompt_eval.scoring import evaluate

MODEL = "claude-haiku-4-5-20251001"


def request(**fields: Any) -> EvaluateRequest:
    return EvaluateRequest.model_validate({"prompt": "You are a helpful coding assistant.",
                                           "model": MODEL, **fields})  # fmt: skip


def test_a_request_needs_a_prompt_a_model_and_an_example_and_refuses_unknown_keys() -> None:
    with pytest.raises(ValidationError, match="at least one of training_examples"):
        request()
    with pytest.raises(ValidationError, match="prompt"):
        request(prompt="", training_examples=[{"input": "a", "expected_output": "b"}])
    with pytest.raises(ValidationError, match="reason_why_bad"):
        request(negative_examples=[{"input": "a", "bad_output": "b"}])
    with pytest.raises(ValidationError, match="expected"):
        request(training_examples=[{"input": "a", "expected": "b"}])
    with pytest.raises(ValidationError, match="batch_size"):
        request(training_examples=[{"input": "a", "expected_output": "b"}], batch_size=0)


def test_the_judge_is_the_target_model_unless_named() -> None:
    one = [{"input": "a", "expected_output": "b"}]
    assert request(training_examples=one).judge == MODEL
    assert request(training_examples=one, judge_model="other-2025-01-01").judge == (
        "other-2025-01-01"
    )


def test_examples_are_numbered_positive_first_and_a_batch_is_drawn_by_its_seed() -> None:
    positives = [{"input": f"p{n}", "expected_output": "x"} for n in range(6)]
    negatives = [{"input": f"n{n}", "bad_output": "y", "reason_why_bad": "rude"} for n in range(4)]
    every = request(training_examples=positives, negative_examples=negatives).examples()
    assert [number for number, _ in every] == list(range(1, 11))
    assert [e.input for _, e in every[5:7]] == ["p5", "n0"]
    drawn = request(training_examples=positives, negative_examples=negatives, batch_size=4)
    numbers = [number for number, _ in drawn.examples()]
    assert len(numbers) == 4 and numbers == sorted(numbers) and len(set(numbers)) == 4
    assert numbers == [n for n, _ in drawn.examples()]  # the same draw again
    other = {
        tuple(n for n, _ in request(training_examples=positives, negative_examples=negatives,
                                    batch_size=4, seed=seed).examples())
        for seed in range(20)
    }  # fmt: skip
    assert len(other) > 1  # the seed decides the draw
    whole = request(training_examples=positives, batch_size=50).examples()
    assert len(whole) == 6


def test_the_answer_has_the_tools_shape_with_strengths_weaknesses_and_suggestions() -> None:
    asked = request(training_examples=[{"input": "sort [3,1]", "expected_output": "[1,3]"}])
    evaluation = evaluate(
        [positive(1, "completeness")],
        structure("has_role", "has_task", "has_examples"),
        ["No error handling or edge case guidance"],
    )
    answer = response_for(asked, evaluation, ["Define error handling"]).model_dump()
    assert list(answer) == [
        "prompt", "score", "passed", "feedback", "strengths", "weaknesses", "suggestions",
    ]  # fmt: skip
    # 75 x 0.5 + 60 x 0.3 + 75 x 0.2 = 37.5 + 18 + 15 = 70.5.
    assert (answer["score"], answer["passed"]) == (0.7, True)
    assert answer["prompt"] == "You are a helpful coding assistant."
    assert answer["feedback"].startswith("Score: 70/100 (PASSED)\n")
    assert answer["strengths"] == ["Has role", "Has task", "Has examples"]
    assert answer["weaknesses"] == [
        "Missing: has format",
        "Missing: has constraints",
        "No error handling or edge case guidance",
    ]
    assert answer["suggestions"][0] == "Add output format specification"
    assert answer["suggestions"][-1] == "Define error handling" and len(answer["suggestions"]) == 3


def test_checks_not_answered_are_neither_strengths_nor_weaknesses_nor_suggestions() -> None:
    asked = request(training_examples=[{"input": "sort [3,1]", "expected_output": "[1,3]"}])
    evaluation = evaluate(
        [positive(1)], {**structure("has_role"), "has_task": None, "has_format": None}, None
    )
    answer = response_for(asked, evaluation).model_dump()
    assert (answer["score"], answer["passed"]) == (None, False)
    assert answer["feedback"].startswith(
        "Score: —/100 (INCOMPLETE: 3 checks could not be answered)"
    )
    assert answer["strengths"] == ["Has role"]
    # Only the checks the judge answered no to; nothing from the critique it never gave.
    assert answer["weaknesses"] == ["Missing: has constraints", "Missing: has examples"]
    assert answer["suggestions"] == [
        "Set boundaries: rules, limits and what to do on bad input",
        "Include an example of an input and its expected output",
    ]
