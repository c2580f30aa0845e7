"""The evaluator's feedback text: the score, then each component with its checks.

A check is marked ✓ (good), ✗ (a fault) or ? (the judge could not answer it); a
component or an example that is not scored shows ``—`` instead of its points, with
how many checks went unanswered, and an incomplete evaluation says so in its first
line instead of passing or failing.
"""

from __future__ import annotations

from fractions import Fraction

from verifier.prompt_eval.scoring import (
    PASS_AT,
    REVERSE_CLAIMS,
    STRUCTURAL_CHECKS,
    Answer,
    Empirical,
    Evaluation,
    ExampleResult,
    not_answered,
    shown,
)

__all__ = ["feedback_text"]

NOT_SCORED = "—"


def feedback_text(evaluation: Evaluation) -> str:
    """``evaluation`` laid out as the evaluator's feedback."""
    _, structural, adversarial = evaluation.components
    points = evaluation.points
    if points is None:
        head = f"Score: {NOT_SCORED}/100 (INCOMPLETE: {not_answered(evaluation.unanswered)})"
    else:
        head = f"Score: {shown(points)}/100 ({'PASSED' if evaluation.passed else 'FAILED'})"
    lines = [head, ""]
    lines += _empirical_lines(evaluation.empirical)
    checks = evaluation.structural
    passed = sum(checks[name] is True for name in STRUCTURAL_CHECKS)
    told = (
        f"not scored: {structural.not_scored}"
        if structural.not_scored
        else f"{passed}/{len(STRUCTURAL_CHECKS)} checks passed"
    )
    lines += [
        "",
        f"Structural (30%): {_points(structural.points)}/100 - {told}",
        *(f"  {_mark(checks[name], good=True)} {name}" for name in STRUCTURAL_CHECKS),
        "",
    ]
    weaknesses = evaluation.weaknesses
    if weaknesses is None:
        lines.append(f"Adversarial (20%): {NOT_SCORED}/100 - not scored: {adversarial.not_scored}")
    else:
        lines += [
            f"Adversarial (20%): {_points(adversarial.points)}/100 - "
            f"{_counted(len(weaknesses), 'weakness', 'weaknesses')} found",
            *(f'  - "{weakness}"' for weakness in weaknesses),
        ]
    if evaluation.assessment:
        lines += ["", f"Assessment: {evaluation.assessment}"]
    return "\n".join(lines)


def _empirical_lines(empirical: Empirical) -> list[str]:
    count = len(empirical.examples)
    n_pos = len(empirical.of_kind("positive"))
    if n_pos and count - n_pos:
        head = (
            f"Combined Empirical (50%): {_points(empirical.points)}/100 — "
            f"Positive: {_points(empirical.positive)}/100 ({_examples(n_pos)}), "
            f"Negative: {_points(empirical.negative)}/100 ({_examples(count - n_pos)})"
        )
    else:
        head = (
            f"Empirical (50%): {_points(empirical.points)}/100 - Tested against {_examples(count)}"
        )
    if empirical.points is None:
        head += f"; not scored: {not_answered(empirical.unanswered)}"
    lines = [head]
    for example in empirical.examples:
        label = "Example" if example.kind == "positive" else "Negative example"
        points = example.points
        mark = "?" if points is None else _mark(points >= PASS_AT, good=True)
        lines.append(f"  {mark} {label} {example.number}: {_points(points)}/100")
        lines += [f"    - {_outcome(example, name)}" for name in example.names]
    return lines


def _outcome(example: ExampleResult, name: str) -> str:
    """A check of ``example`` named as what ✓ asserts: a reverse check found is a
    fault, so it shows as the claim it failed (``differs_from_bad_output: ✗``)."""
    answer = example.checks[name]
    if example.kind == "positive":
        return f"{name}: {_mark(answer, good=True)}"
    return f"{REVERSE_CLAIMS[name]}: {_mark(answer, good=False)}"


def _points(points: Fraction | None) -> str:
    return NOT_SCORED if points is None else str(shown(points))


def _mark(answer: Answer, *, good: bool) -> str:
    """✓ when ``answer`` is the good one, ✗ when it is not, ? when there is none."""
    if answer is None:
        return "?"
    return "✓" if answer == good else "✗"


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _examples(count: int) -> str:
    return _counted(count, "example", "examples")
