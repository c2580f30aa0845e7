"""What a trial measures of paired verdicts: the judge's, then the candidate's.

Each re-asked verdict is a pair (stored pass?, candidate pass?). Over a set of pairs:
the share that agree, Cohen's kappa with its 95% Wald interval (``verifier.compare.
calibrate.cohens_kappa``, ``verifier.compare.agreement.kappa_interval``, the judge in
the place of the human labels), the pass rate before and after with their paired
difference (candidate minus judge) and Newcombe's 95% interval for it, and the exact
McNemar p of the discordant pairs (``verifier.compare.stats``): the same figures
``verifier calibrate`` and ``verifier compare`` give, reused, not recomputed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verifier.compare.agreement import kappa_interval
from verifier.compare.calibrate import cohens_kappa, confusion_of
from verifier.compare.stats import PairedTable, mcnemar_exact_p, newcombe_paired_interval

__all__ = ["Figures", "figures_of"]


@dataclass(frozen=True, slots=True)
class Figures:
    """The agreement of a candidate with a judge over paired verdicts.

    Attributes:
        table: The paired table: ``baseline_only`` is a verdict the judge passed and
            the candidate failed (the candidate is stricter), ``candidate_only`` one the
            judge failed and the candidate passed (laxer).
        kappa: Cohen's kappa (``None``: undefined, one verdict throughout on both sides).
        kappa_ci95: Its 95% interval (``None``: undefined, or no disagreement at all).
        difference_ci95: The 95% interval of the pass-rate difference.
        mcnemar_p: Two-sided exact McNemar p of the discordant pairs.
    """

    table: PairedTable
    kappa: float | None
    kappa_ci95: tuple[float, float] | None
    difference_ci95: tuple[float, float]
    mcnemar_p: float

    @property
    def n(self) -> int:
        return self.table.pairs

    @property
    def agreement(self) -> float | None:
        """Share of pairs with the same verdict (``None`` with no pairs)."""
        t = self.table
        return (t.both_pass + t.both_fail) / t.pairs if t.pairs else None

    def as_dict(self) -> dict[str, Any]:
        t = self.table
        return {
            "n": t.pairs,
            "agreed": t.both_pass + t.both_fail,
            "agreement": _r(self.agreement),
            "kappa": _r(self.kappa),
            "kappa_ci95": _pair(self.kappa_ci95),
            "pass_rate_before": _r(t.baseline_rate),
            "pass_rate_after": _r(t.candidate_rate),
            "difference": _r(t.difference),
            "difference_ci95": _pair(self.difference_ci95),
            "mcnemar_p": _r(self.mcnemar_p),
            "stricter": t.baseline_only,
            "laxer": t.candidate_only,
        }


def figures_of(pairs: Iterable[tuple[bool, bool]]) -> Figures:
    """The figures of ``(judge passed, candidate passed)`` pairs."""
    # Cohen's table with the judge in the place of the human labels.
    confusion = confusion_of(pairs)
    table = PairedTable(
        both_pass=confusion.both_pass,
        baseline_only=confusion.human_pass_judge_fail,
        candidate_only=confusion.human_fail_judge_pass,
        both_fail=confusion.both_fail,
    )
    return Figures(
        table=table,
        kappa=cohens_kappa(confusion),
        kappa_ci95=kappa_interval(confusion),
        difference_ci95=newcombe_paired_interval(table),
        mcnemar_p=mcnemar_exact_p(table.baseline_only, table.candidate_only),
    )


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _pair(values: tuple[float, float] | None) -> list[float] | None:
    return None if values is None else [round(values[0], 6), round(values[1], 6)]
