"""The decision rule of a trial, stated before any call and recorded with its outcome.

A candidate passes when it agrees with the judge beyond chance, surely enough (the
lower bound of kappa's 95% interval at least ``min_kappa``: Cohen's kappa for pass/fail
verdicts, quadratic weighted kappa for scores on a scale), and does not move the pass
rate (the 95% interval of the paired difference inside ``±max_shift``; a score passes
at its claim's ``pass_at``). With no disagreement at all kappa's lower bound is the
zero-disagreement bound (``verifier.trial.figures``), so a perfect record on many
verdicts can pass and one on a few cannot. The rule cannot be applied, and the outcome
is ``undecided`` rather than ``fail``, when nothing was re-asked or kappa is undefined
(one verdict throughout on both sides).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from verifier.trial.figures import Figures

__all__ = ["DEFAULT_MAX_SHIFT", "DEFAULT_MIN_KAPPA", "Outcome", "TrialRule"]

DEFAULT_MIN_KAPPA = 0.6
DEFAULT_MAX_SHIFT = 0.05

Outcome = Literal["pass", "fail", "undecided", "interrupted"]


@dataclass(frozen=True, slots=True)
class TrialRule:
    """When a candidate judges like the judge.

    Attributes:
        min_kappa: The least lower bound of kappa's 95% interval.
        max_shift: The widest the pass-rate difference's 95% interval may reach.
    """

    min_kappa: float = DEFAULT_MIN_KAPPA
    max_shift: float = DEFAULT_MAX_SHIFT

    def statement(self) -> str:
        """The rule in one sentence, as it is printed before the calls."""
        return (
            f"pass when the lower bound of Cohen's kappa's 95% interval (quadratic weighted "
            f"kappa's, for scores) is at least "
            f"{self.min_kappa:g} and the 95% interval of the pass-rate difference "
            f"(candidate minus judge) lies within ±{self.max_shift:g}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "min_kappa": self.min_kappa,
            "max_shift": self.max_shift,
            "statement": self.statement(),
        }

    def decide(self, figures: Figures) -> tuple[Outcome, str]:
        """The outcome over ``figures``, with why."""
        if figures.n == 0:
            return "undecided", "no verdict was re-asked"
        if figures.kappa is None:
            return "undecided", "kappa is undefined (one verdict throughout)"
        if figures.kappa_ci is None:
            return "undecided", "kappa's interval is undefined"
        low = figures.kappa_ci[0]
        below, above = figures.difference_ci
        reasons = []
        if low < self.min_kappa:
            reasons.append(f"kappa's lower bound {low:.3f} is below {self.min_kappa:g}")
        if below < -self.max_shift or above > self.max_shift:
            reasons.append(
                f"the pass-rate difference's interval [{below:+.3f}, {above:+.3f}] "
                f"leaves ±{self.max_shift:g}"
            )
        if reasons:
            return "fail", "; ".join(reasons)
        return "pass", (
            f"kappa's lower bound {low:.3f} >= {self.min_kappa:g} and the pass-rate "
            f"difference's interval [{below:+.3f}, {above:+.3f}] lies within ±{self.max_shift:g}"
        )
