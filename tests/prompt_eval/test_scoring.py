"""The prompt evaluator's arithmetic against values worked by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verifier.prompt_eval.scoring import (
    REVERSE_CHECKS,
    STANDARD_CHECKS,
    STRUCTURAL_CHECKS,
    ExampleResult,
    adversarial_points,
    evaluate,
)


def positive(number: int, *failed: str) -> ExampleResult:
    return ExampleResult(number, "positive", {c: c not in failed for c in STANDARD_CHECKS})


def negative(number: int, *found: str) -> ExampleResult:
    return ExampleResult(number, "negative", {c: c in found for c in REVERSE_CHECKS})


def structure(*passed: str) -> dict[str, bool]:
    return {c: c in passed for c in STRUCTURAL_CHECKS}


def test_the_worked_example_scores_53_and_fails_with_its_feedback_laid_out() -> None:
    # 75 x 0.5 + 20 x 0.3 + 50 x 0.2 = 37.5 + 6 + 10 = 53.5, shown as 53.
    evaluation = evaluate(
        [positive(1, "completeness")],
        structure("has_role"),
        [
            "Extremely vague, lacks detail about language or context",
            "No error handling or edge case guidance",
        ],
        "This prompt is so generic it's practically useless for consistent coding assistance.",
    )
    assert evaluation.points == Fraction(107, 2)
    assert (evaluation.score, evaluation.passed) == (0.53, False)
    assert evaluation.feedback().splitlines() == [
        "Score: 53/100 (FAILED)",
        "",
        "Empirical (50%): 75/100 - Tested against 1 example",
        "  ✓ Example 1: 75/100",
        "    - semantic_match: ✓",
        "    - format_match: ✓",
        "    - correctness: ✓",
        "    - completeness: ✗",
        "",
        "Structural (30%): 20/100 - 1/5 checks passed",
        "  ✓ has_role",
        "  ✗ has_task",
        "  ✗ has_format",
        "  ✗ has_constraints",
        "  ✗ has_examples",
        "",
        "Adversarial (20%): 50/100 - 2 weaknesses found",
        '  - "Extremely vague, lacks detail about language or context"',
        '  - "No error handling or edge case guidance"',
        "",
        "Assessment: This prompt is so generic it's practically useless for consistent "
        "coding assistance.",
    ]


def test_reverse_mode_takes_25_points_per_bad_trait_shared() -> None:
    clean = evaluate([negative(1)], structure(*STRUCTURAL_CHECKS), [])
    assert clean.empirical.points == 100 and clean.points == 100 and clean.passed
    spoiled = evaluate([negative(1, *REVERSE_CHECKS)], structure(), ["a", "b", "c", "d"])
    # 0 x 0.5 + 0 x 0.3 + 25 x 0.2 = 5.
    assert spoiled.empirical.points == 0 and spoiled.points == 5
    assert "  ✗ Negative example 1: 0/100" in spoiled.feedback()
    assert "    - avoids_bad_tone: ✗" in spoiled.feedback()
    half = evaluate([negative(1, "same_tone", "same_mistakes")], structure(), [])
    assert half.empirical.points == 50
    assert "    - differs_from_bad_output: ✓" in half.feedback()


def test_combined_mode_averages_the_two_kinds_not_the_examples() -> None:
    # Positive (100 + 75) / 2 = 87.5; negative (75 + 100 + 50) / 3 = 75; (87.5 + 75) / 2
    # = 81.25 (the mean of all five examples would be 80).
    evaluation = evaluate(
        [
            positive(1),
            positive(2, "format_match"),
            negative(3, "same_tone"),
            negative(4),
            negative(5, "same_tone", "same_mistakes"),
        ],
        structure("has_role", "has_task"),
        ["vague"],
    )
    assert evaluation.empirical.points == Fraction(325, 4)
    assert evaluation.feedback().splitlines()[2] == (
        "Combined Empirical (50%): 81/100 — Positive: 87/100 (2 examples), "
        "Negative: 75/100 (3 examples)"
    )
    # 81.25 x 0.5 + 40 x 0.3 + 75 x 0.2 = 40.625 + 12 + 15 = 67.625.
    assert evaluation.points == Fraction(541, 8) and evaluation.score == 0.67


def test_the_pass_mark_is_70_exactly_and_shown_points_round_down() -> None:
    at_the_mark = evaluate([positive(1)], structure(), [])  # 50 + 0 + 20
    assert at_the_mark.points == 70 and at_the_mark.passed
    assert at_the_mark.feedback().startswith("Score: 70/100 (PASSED)")
    # (100 + 75 + 75) / 3 = 83.33; x 0.5 + 60 x 0.3 + 50 x 0.2 = 41.67 + 18 + 10 = 69.67.
    below = evaluate(
        [positive(1), positive(2, "correctness"), positive(3, "completeness")],
        structure("has_role", "has_task", "has_format"),
        ["a", "b"],
    )
    assert below.points == Fraction(209, 3)
    assert (below.passed, below.score) == (False, 0.69)


@pytest.mark.parametrize(("found", "points"), [(0, 100), (1, 75), (2, 50), (3, 25), (9, 25)])
def test_adversarial_points_by_weaknesses_found(found: int, points: int) -> None:
    assert adversarial_points(found) == points


def test_incomplete_or_empty_answers_are_refused() -> None:
    with pytest.raises(ValueError, match="missing \\['completeness'\\]"):
        evaluate(
            [ExampleResult(1, "positive", {c: True for c in STANDARD_CHECKS[:3]})],
            structure(),
            [],
        )
    with pytest.raises(ValueError, match="unknown \\['has_tone'\\]"):
        evaluate([positive(1)], {**structure(), "has_tone": True}, [])
    with pytest.raises(ValueError, match="at least one example"):
        evaluate([], structure(), [])
    with pytest.raises(ValueError, match="negative"):
        adversarial_points(-1)


def test_a_check_not_answered_leaves_its_component_unscored_and_the_evaluation_incomplete() -> None:
    unsure = ExampleResult(2, "negative", {**{c: False for c in REVERSE_CHECKS}, "same_tone": None})
    evaluation = evaluate(
        [positive(1), unsure],
        {**structure("has_role"), "has_task": None, "has_format": None},
        None,
    )
    empirical, structural, adversarial = evaluation.components
    assert (empirical.points, empirical.not_scored) == (None, "1 check could not be answered")
    assert (structural.points, structural.not_scored) == (None, "2 checks could not be answered")
    assert adversarial.not_scored == "the critique could not be answered"
    assert evaluation.unanswered == 4
    assert (evaluation.points, evaluation.score, evaluation.passed) == (None, None, False)
    assert evaluation.verdict == "incomplete"
    assert evaluation.feedback().splitlines() == [
        "Score: —/100 (INCOMPLETE: 4 checks could not be answered)",
        "",
        "Combined Empirical (50%): —/100 — Positive: 100/100 (1 example), Negative: —/100 "
        "(1 example); not scored: 1 check could not be answered",
        "  ✓ Example 1: 100/100",
        "    - semantic_match: ✓",
        "    - format_match: ✓",
        "    - correctness: ✓",
        "    - completeness: ✓",
        "  ? Negative example 2: —/100",
        "    - differs_from_bad_output: ✓",
        "    - avoids_bad_pattern: ✓",
        "    - avoids_bad_tone: ?",
        "    - avoids_bad_mistakes: ✓",
        "",
        "Structural (30%): —/100 - not scored: 2 checks could not be answered",
        "  ✓ has_role",
        "  ? has_task",
        "  ? has_format",
        "  ✗ has_constraints",
        "  ✗ has_examples",
        "",
        "Adversarial (20%): —/100 - not scored: the critique could not be answered",
    ]


def test_answered_components_keep_their_points_beside_one_not_scored() -> None:
    evaluation = evaluate([positive(1, "completeness")], structure("has_role"), None)
    empirical, structural, adversarial = evaluation.components
    assert (empirical.points, structural.points, adversarial.points) == (75, 20, None)
    assert evaluation.verdict == "incomplete" and evaluation.score is None
    complete = evaluate([positive(1, "completeness")], structure("has_role"), ["vague"])
    assert complete.verdict == "failed" and complete.unanswered == 0
