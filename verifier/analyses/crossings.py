"""Where a claim's trend crosses a judge succession: the run axis marks, the alert notes.

A pass-rate line that spans a judge's change of triple compares the verdicts of two
judges. When sealed successions (``verifier.gaps.successions``, written by ``verifier
judge switch``) lead the judge from the triple it judged under before to the one it
judges under now, the change was measured and chosen. The trend pages mark it on the
run axis, and a degradation alert whose window spans it says so: it stays an alert,
and its reader learns that the judge changed and how differently its trial found the
successor judges.

The places are the audit's own: a claim's change of triple (a ``DriftChange`` of
scope ``claim``: the first run whose rows of the claim carry the new triple, after
runs with the old one) that ``Lineage.between`` explains. They are computed here once
(``succession_crossings``, asked by ``audit_history``) and every page renders them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from verifier.analyses.drift import DriftChange
from verifier.analyses.lineage import chain_of
from verifier.gaps.successions import Lineage, SuccessionRow

__all__ = [
    "SuccessionCrossing",
    "SuccessionMark",
    "succession_crossings",
    "succession_dict",
    "succession_marks",
    "succession_note",
]


@dataclass(frozen=True, slots=True)
class SuccessionCrossing:
    """A claim judged under a succession's new triple, after runs under its old one.

    Attributes:
        contract_id: The contract the rows name.
        claim_id: The claim.
        judge: The judge that judges it (``None`` when its rows name none).
        run_id: The first run whose rows of the claim carry the new triple.
        before_run_id: The last run under the old triple (``run_id`` when one run
            holds both).
        successions: The successions that lead from the old triple to the new, in
            order (one, or a chain).
    """

    contract_id: str
    claim_id: str
    judge: str | None
    run_id: str
    before_run_id: str
    successions: tuple[SuccessionRow, ...]


@dataclass(frozen=True, slots=True)
class SuccessionMark:
    """A mark on a run axis: before ``run_id``, a judge moved through ``successions``.

    Attributes:
        run_id: The first run judged by the successor.
        before_run_id: The last run judged by its predecessor.
        judge: The judge.
        successions: The successions it moved through, in order.
        claims: The claims of the axis that the judge judges across the mark.
    """

    run_id: str
    before_run_id: str
    judge: str
    successions: tuple[SuccessionRow, ...]
    claims: tuple[str, ...]

    @property
    def label(self) -> str:
        """``judge J: OLD -> NEW, agreement A`` (one part per succession of a chain)."""
        return f"judge {self.judge}: " + "; ".join(_moved(row) for row in self.successions)

    @property
    def title(self) -> str:
        """The successions' summary lines and where the mark stands on the axis."""
        summaries = "; ".join(row.summary() for row in self.successions)
        return f"{summaries}; first run under the new judge: {self.run_id}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "before_run_id": self.before_run_id,
            "judge": self.judge,
            "claims": list(self.claims),
            "label": self.label,
            "successions": [succession_dict(row) for row in self.successions],
        }


def succession_crossings(
    drift: Iterable[DriftChange], lineage: Lineage
) -> tuple[SuccessionCrossing, ...]:
    """The claims' changes of triple that ``lineage`` explains, in the order of ``drift``.

    Args:
        drift: The audit's changes of triple (``JudgeDriftObserver.changes``), over the
            whole history.
        lineage: The store's sealed successions.
    """
    if not lineage:
        return ()
    found = []
    for change in drift:
        if change.scope != "claim":
            continue
        # The audit's own reading of the lineage: what it names a succession is marked.
        chain = chain_of(change, lineage)
        if chain:
            found.append(
                SuccessionCrossing(
                    change.contract_id,
                    change.subject,
                    change.after.judge_name,
                    change.run_id,
                    change.before_run_id,
                    tuple(chain),
                )
            )
    return tuple(found)


def succession_marks(crossings: Iterable[SuccessionCrossing]) -> tuple[SuccessionMark, ...]:
    """One mark per run and chain of successions, naming every claim that crosses it."""
    claims: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    first: dict[tuple[str, tuple[str, ...]], SuccessionCrossing] = {}
    for crossing in crossings:
        key = (crossing.run_id, tuple(row.succession_id for row in crossing.successions))
        first.setdefault(key, crossing)
        claims.setdefault(key, []).append(crossing.claim_id)
    return tuple(
        SuccessionMark(
            c.run_id,
            c.before_run_id,
            c.judge or c.successions[0].judge,
            c.successions,
            tuple(sorted(set(claims[key]))),
        )
        for key, c in first.items()
    )


def succession_note(row: SuccessionRow) -> str:
    """``judge succession S of J (OLD -> NEW, agreement A, shift D)``."""
    return f"judge succession {row.succession_id} of {row.judge} ({_moved(row)}, shift " + (
        f"{_figure(row.figures.get('difference'), signed=True)})"
    )


def succession_dict(row: SuccessionRow) -> dict[str, Any]:
    """What a report in JSON says of a succession: who moved where, the trial's figures."""
    before, after = row.models()
    figures = row.figures
    return {
        "succession_id": row.succession_id,
        "judge": row.judge,
        "old_model": before,
        "new_model": after,
        "trial_id": row.trial_id,
        "outcome": row.outcome,
        "agreement": figures.get("agreement"),
        "kappa": figures.get("kappa"),
        "shift": figures.get("difference"),
        "accepted_failed": row.accepted_failed,
        "summary": row.summary(),
    }


def _moved(row: SuccessionRow) -> str:
    before, after = row.models()
    return f"{before} -> {after}, agreement {_figure(row.figures.get('agreement'))}"


def _figure(value: Any, *, signed: bool = False) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"
