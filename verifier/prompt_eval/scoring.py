"""The prompt evaluator's arithmetic: checks in, points and a verdict out.

Judges answer yes or no per check; everything numeric happens here, on exact
fractions, so a score never depends on how a model (or a float) rounds:

- empirical (weight 1/2): per positive example, 25 points per standard check passed;
  per negative example, 100 less 25 points per bad trait the output shares; each kind
  averaged over its examples, and the two averaged when both are given;
- structural (3/10): 20 points per structural check passed;
- adversarial (1/5): 100, 75, 50 or 25 points for 0, 1, 2 or 3+ weaknesses found.

The final score passes at 70 of 100. Shown figures are whole points rounded down
(53.5 is shown as 53, and a score of 69.9 does not pass), and ``score`` is the shown
figure over 100.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

__all__ = [
    "ADVERSARIAL_POINTS",
    "PASS_AT",
    "REVERSE_CHECKS",
    "STANDARD_CHECKS",
    "STRUCTURAL_CHECKS",
    "WEIGHTS",
    "Empirical",
    "Evaluation",
    "ExampleResult",
    "adversarial_points",
    "evaluate",
    "shown",
    "structural_points",
]

STANDARD_CHECKS: Final = ("semantic_match", "format_match", "correctness", "completeness")
"""Asked of an output against the expected output; each passed check is worth 25 points."""
REVERSE_CHECKS: Final = ("matches_bad_output", "matches_bad_pattern", "same_tone", "same_mistakes")
"""Asked of an output against a known bad output; each one found costs 25 points."""
STRUCTURAL_CHECKS: Final = ("has_role", "has_task", "has_format", "has_constraints", "has_examples")
"""Asked of the prompt itself; each passed check is worth 20 points."""
ADVERSARIAL_POINTS: Final = (100, 75, 50, 25)
"""Points for 0, 1, 2 and 3 or more weaknesses found."""
WEIGHTS: Final = {
    "empirical": Fraction(1, 2),
    "structural": Fraction(3, 10),
    "adversarial": Fraction(1, 5),
}
PASS_AT: Final = 70
"""Points out of 100 at which a prompt passes."""

ExampleKind = Literal["positive", "negative"]


def shown(points: Fraction) -> int:
    """Whole points as every report shows them: rounded down."""
    return math.floor(points)


def _answered(checks: Mapping[str, bool], names: Sequence[str], what: str) -> int:
    """How many of ``names`` were answered yes; every one must be answered."""
    missing = [name for name in names if name not in checks]
    unknown = sorted(set(checks) - set(names))
    if missing or unknown:
        raise ValueError(f"{what} checks: missing {missing or 'none'}, unknown {unknown or 'none'}")
    return sum(bool(checks[name]) for name in names)


@dataclass(frozen=True)
class ExampleResult:
    """One training example's checks, answered by the judge.

    Attributes:
        number: The example's position, from 1, as feedback names it.
        kind: ``positive`` (an expected output) or ``negative`` (a known bad output).
        checks: Each check of its kind, answered yes or no.
    """

    number: int
    kind: ExampleKind
    checks: Mapping[str, bool]

    @property
    def points(self) -> Fraction:
        """25 per standard check passed, or 100 less 25 per bad trait shared."""
        if self.kind == "positive":
            return Fraction(25 * _answered(self.checks, STANDARD_CHECKS, "standard"))
        return Fraction(100 - 25 * _answered(self.checks, REVERSE_CHECKS, "reverse"))

    @property
    def names(self) -> tuple[str, ...]:
        return STANDARD_CHECKS if self.kind == "positive" else REVERSE_CHECKS


@dataclass(frozen=True)
class Empirical:
    """The empirical component over every example.

    Attributes:
        examples: The examples in order.
    """

    examples: Sequence[ExampleResult]

    def _mean(self, kind: ExampleKind) -> Fraction | None:
        of_kind = [e.points for e in self.examples if e.kind == kind]
        return sum(of_kind, Fraction(0)) / len(of_kind) if of_kind else None

    @property
    def positive(self) -> Fraction | None:
        """Mean points of the positive examples (``None`` without any)."""
        return self._mean("positive")

    @property
    def negative(self) -> Fraction | None:
        """Mean points of the negative examples (``None`` without any)."""
        return self._mean("negative")

    @property
    def points(self) -> Fraction:
        """Standard, reverse, or (both given) the mean of the two."""
        kinds = [p for p in (self.positive, self.negative) if p is not None]
        if not kinds:
            raise ValueError("the empirical score needs at least one example")
        return sum(kinds, Fraction(0)) / len(kinds)


def structural_points(checks: Mapping[str, bool]) -> Fraction:
    """20 points per structural check the prompt passes."""
    return Fraction(20 * _answered(checks, STRUCTURAL_CHECKS, "structural"))


def adversarial_points(weaknesses: int) -> Fraction:
    """100, 75, 50 or 25 points for 0, 1, 2 or 3+ weaknesses."""
    if weaknesses < 0:
        raise ValueError("a count of weaknesses cannot be negative")
    return Fraction(ADVERSARIAL_POINTS[min(weaknesses, len(ADVERSARIAL_POINTS) - 1)])


@dataclass(frozen=True)
class Evaluation:
    """A prompt's three components and what they add up to.

    Attributes:
        empirical: The examples' results.
        structural: Each structural check of the prompt.
        weaknesses: The adversarial critique's weaknesses, as it worded them.
        assessment: The critique's summary sentence (shown last in feedback).
    """

    empirical: Empirical
    structural: Mapping[str, bool]
    weaknesses: Sequence[str]
    assessment: str = ""

    @property
    def points(self) -> Fraction:
        """The weighted sum, exact."""
        return (
            self.empirical.points * WEIGHTS["empirical"]
            + structural_points(self.structural) * WEIGHTS["structural"]
            + adversarial_points(len(self.weaknesses)) * WEIGHTS["adversarial"]
        )

    @property
    def score(self) -> float:
        """The shown whole points over 100 (53.5 points: 0.53)."""
        return shown(self.points) / 100

    @property
    def passed(self) -> bool:
        """Whether the prompt reached ``PASS_AT`` points."""
        return self.points >= PASS_AT

    def feedback(self) -> str:
        """The feedback text, laid out component by component with each check."""
        verdict = "PASSED" if self.passed else "FAILED"
        lines = [f"Score: {shown(self.points)}/100 ({verdict})", ""]
        lines += self._empirical_lines()
        passed = [name for name in STRUCTURAL_CHECKS if self.structural[name]]
        lines += [
            "",
            f"Structural (30%): {shown(structural_points(self.structural))}/100 - "
            f"{len(passed)}/{len(STRUCTURAL_CHECKS)} checks passed",
            *(f"  {_mark(self.structural[name])} {name}" for name in STRUCTURAL_CHECKS),
            "",
            f"Adversarial (20%): {shown(adversarial_points(len(self.weaknesses)))}/100 - "
            f"{_counted(len(self.weaknesses), 'weakness', 'weaknesses')} found",
            *(f'  - "{weakness}"' for weakness in self.weaknesses),
        ]
        if self.assessment:
            lines += ["", f"Assessment: {self.assessment}"]
        return "\n".join(lines)

    def _empirical_lines(self) -> list[str]:
        empirical = self.empirical
        count = len(empirical.examples)
        positive, negative = empirical.positive, empirical.negative
        if positive is not None and negative is not None:
            n_pos = sum(e.kind == "positive" for e in empirical.examples)
            head = (
                f"Combined Empirical (50%): {shown(empirical.points)}/100 — "
                f"Positive: {shown(positive)}/100 ({_examples(n_pos)}), "
                f"Negative: {shown(negative)}/100 ({_examples(count - n_pos)})"
            )
        else:
            head = (
                f"Empirical (50%): {shown(empirical.points)}/100 - "
                f"Tested against {_examples(count)}"
            )
        lines = [head]
        for example in empirical.examples:
            label = "Example" if example.kind == "positive" else "Negative example"
            lines.append(
                f"  {_mark(example.points >= PASS_AT)} {label} {example.number}: "
                f"{shown(example.points)}/100"
            )
            # A reverse check found is a fault, so its mark is a cross.
            good = example.kind == "positive"
            lines += [
                f"    - {name}: {_mark(example.checks[name] == good)}" for name in example.names
            ]
        return lines


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _examples(count: int) -> str:
    return _counted(count, "example", "examples")


def evaluate(
    examples: Sequence[ExampleResult],
    structural: Mapping[str, bool],
    weaknesses: Sequence[str],
    assessment: str = "",
) -> Evaluation:
    """An ``Evaluation``, with every check checked for completeness at once.

    Raises:
        ValueError: A check missing or unknown, or no example at all.
    """
    evaluation = Evaluation(
        Empirical(tuple(examples)), dict(structural), tuple(weaknesses), assessment
    )
    evaluation.points  # noqa: B018 - validates every component now, not when first shown
    return evaluation
