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

A check the judge could not answer (``None``) is neither a yes nor a no: it is not
scored, and neither is its component (an example, the structure, the critique), which
shows ``—`` with how many checks went unanswered. An evaluation with a component not
scored has no score: it is incomplete, never passed nor failed on what was not asked.
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
    "REVERSE_CLAIMS",
    "STANDARD_CHECKS",
    "STRUCTURAL_CHECKS",
    "WEIGHTS",
    "Answer",
    "Component",
    "Empirical",
    "Evaluation",
    "ExampleResult",
    "Verdict",
    "adversarial_points",
    "evaluate",
    "not_answered",
    "shown",
    "structural_points",
]

STANDARD_CHECKS: Final = ("semantic_match", "format_match", "correctness", "completeness")
"""Asked of an output against the expected output; each passed check is worth 25 points."""
REVERSE_CLAIMS: Final = {
    "matches_bad_output": "differs_from_bad_output",
    "matches_bad_pattern": "avoids_bad_pattern",
    "same_tone": "avoids_bad_tone",
    "same_mistakes": "avoids_bad_mistakes",
}
"""Each reverse check (a fault found costs points) and the claim that passes when the
output does not have that fault: the name feedback shows beside its ✓ or ✗."""
REVERSE_CHECKS: Final = tuple(REVERSE_CLAIMS)
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
Answer = bool | None
"""A check's answer: yes, no, or ``None`` when the judge could not answer it."""
Verdict = Literal["passed", "failed", "incomplete"]


def shown(points: Fraction) -> int:
    """Whole points as every report shows them: rounded down."""
    return math.floor(points)


def _tally(checks: Mapping[str, Answer], names: Sequence[str], what: str) -> tuple[int, int]:
    """How many of ``names`` were answered yes, and how many were not answered; every
    one must be given (``None`` for a check the judge could not answer)."""
    missing = [name for name in names if name not in checks]
    unknown = sorted(set(checks) - set(names))
    if missing or unknown:
        raise ValueError(f"{what} checks: missing {missing or 'none'}, unknown {unknown or 'none'}")
    return (
        sum(checks[name] is True for name in names),
        sum(checks[name] is None for name in names),
    )


def not_answered(count: int) -> str:
    """Why a component is not scored: ``2 checks could not be answered``."""
    return f"{count} {'check' if count == 1 else 'checks'} could not be answered"


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
    checks: Mapping[str, Answer]

    @property
    def names(self) -> tuple[str, ...]:
        return STANDARD_CHECKS if self.kind == "positive" else REVERSE_CHECKS

    @property
    def unanswered(self) -> int:
        """How many of its checks the judge could not answer."""
        return _tally(self.checks, self.names, self.kind)[1]

    @property
    def points(self) -> Fraction | None:
        """25 per standard check passed, or 100 less 25 per bad trait shared; ``None``
        (not scored) when a check was not answered."""
        yes, unanswered = _tally(self.checks, self.names, self.kind)
        if unanswered:
            return None
        return Fraction(25 * yes if self.kind == "positive" else 100 - 25 * yes)


@dataclass(frozen=True)
class Empirical:
    """The empirical component over every example.

    Attributes:
        examples: The examples in order.
    """

    examples: Sequence[ExampleResult]

    def of_kind(self, kind: ExampleKind) -> list[ExampleResult]:
        return [e for e in self.examples if e.kind == kind]

    def _mean(self, kind: ExampleKind) -> Fraction | None:
        points = [e.points for e in self.of_kind(kind)]
        if not points or any(p is None for p in points):
            return None
        return sum((p for p in points if p is not None), Fraction(0)) / len(points)

    @property
    def positive(self) -> Fraction | None:
        """Mean points of the positive examples (``None`` without any, or when one of
        them is not scored)."""
        return self._mean("positive")

    @property
    def negative(self) -> Fraction | None:
        """Mean points of the negative examples (``None`` as for ``positive``)."""
        return self._mean("negative")

    @property
    def unanswered(self) -> int:
        return sum(e.unanswered for e in self.examples)

    @property
    def points(self) -> Fraction | None:
        """Standard, reverse, or (both given) the mean of the two; ``None`` (not
        scored) when a check of an example was not answered."""
        if not self.examples:
            raise ValueError("the empirical score needs at least one example")
        if self.unanswered:
            return None
        kinds = [p for p in (self.positive, self.negative) if p is not None]
        return sum(kinds, Fraction(0)) / len(kinds)


def structural_points(checks: Mapping[str, Answer]) -> Fraction | None:
    """20 points per structural check the prompt passes; ``None`` (not scored) when a
    check was not answered."""
    yes, unanswered = _tally(checks, STRUCTURAL_CHECKS, "structural")
    return None if unanswered else Fraction(20 * yes)


def adversarial_points(weaknesses: int) -> Fraction:
    """100, 75, 50 or 25 points for 0, 1, 2 or 3+ weaknesses."""
    if weaknesses < 0:
        raise ValueError("a count of weaknesses cannot be negative")
    return Fraction(ADVERSARIAL_POINTS[min(weaknesses, len(ADVERSARIAL_POINTS) - 1)])


@dataclass(frozen=True)
class Component:
    """One weighted part of the score.

    Attributes:
        name: ``empirical``, ``structural`` or ``adversarial``.
        points: Its points out of 100, or ``None`` when it is not scored.
        unanswered: Its checks the judge could not answer (the critique is one check).
    """

    name: str
    points: Fraction | None
    unanswered: int

    @property
    def weight(self) -> Fraction:
        return WEIGHTS[self.name]

    @property
    def not_scored(self) -> str | None:
        """Why it is not scored (``3 checks could not be answered``), or ``None``."""
        if self.points is not None:
            return None
        if self.name == "adversarial":
            return "the critique could not be answered"
        return not_answered(self.unanswered)


@dataclass(frozen=True)
class Evaluation:
    """A prompt's three components and what they add up to.

    Attributes:
        empirical: The examples' results.
        structural: Each structural check of the prompt (``None``: not answered).
        weaknesses: The adversarial critique's weaknesses, as it worded them
            (``None``: the critique could not be answered).
        assessment: The critique's summary sentence (shown last in feedback).
    """

    empirical: Empirical
    structural: Mapping[str, Answer]
    weaknesses: Sequence[str] | None
    assessment: str = ""

    @property
    def components(self) -> tuple[Component, Component, Component]:
        """Empirical, structural and adversarial, each scored or not."""
        critique = self.weaknesses
        return (
            Component("empirical", self.empirical.points, self.empirical.unanswered),
            Component(
                "structural",
                structural_points(self.structural),
                _tally(self.structural, STRUCTURAL_CHECKS, "structural")[1],
            ),
            Component(
                "adversarial",
                None if critique is None else adversarial_points(len(critique)),
                int(critique is None),
            ),
        )

    @property
    def unanswered(self) -> int:
        """Every check the judge could not answer."""
        return sum(c.unanswered for c in self.components)

    @property
    def points(self) -> Fraction | None:
        """The weighted sum, exact; ``None`` when a component is not scored."""
        total = Fraction(0)
        for component in self.components:
            if component.points is None:
                return None
            total += component.points * component.weight
        return total

    @property
    def score(self) -> float | None:
        """The shown whole points over 100 (53.5 points: 0.53); ``None`` when incomplete."""
        points = self.points
        return None if points is None else shown(points) / 100

    @property
    def passed(self) -> bool:
        """Whether the prompt reached ``PASS_AT`` points (never when incomplete)."""
        points = self.points
        return points is not None and points >= PASS_AT

    @property
    def verdict(self) -> Verdict:
        if self.points is None:
            return "incomplete"
        return "passed" if self.passed else "failed"

    def feedback(self) -> str:
        """The feedback text, laid out component by component with each check."""
        from verifier.prompt_eval.feedback import feedback_text

        return feedback_text(self)


def evaluate(
    examples: Sequence[ExampleResult],
    structural: Mapping[str, Answer],
    weaknesses: Sequence[str] | None,
    assessment: str = "",
) -> Evaluation:
    """An ``Evaluation``, with every check checked for completeness at once.

    Raises:
        ValueError: A check missing or unknown, or no example at all.
    """
    evaluation = Evaluation(
        Empirical(tuple(examples)),
        dict(structural),
        None if weaknesses is None else tuple(weaknesses),
        assessment,
    )
    evaluation.components  # noqa: B018 - validates every component now, not when first shown
    return evaluation
