"""Which judge changes a recorded succession explains (``verifier judge switch``; ADR 0074).

A judge whose triple changes between runs is drift (``verifier.analyses.drift``)
unless the store's sealed successions lead that judge from the old triple to the new
one, directly or through a chain: then the change was measured by a trial and chosen,
and the audit names the succession (with the trial's agreement) instead. The split is
made here, once, and every reader of the audit (its console, Markdown and JSON, the
trend pages) sees the same two lists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from verifier.analyses.drift import DriftChange
from verifier.gaps.successions import Lineage, SuccessionRow

__all__ = ["chain_of", "explain_drift", "explained_by"]


def chain_of(change: DriftChange, lineage: Lineage) -> list[SuccessionRow]:
    """The successions of ``lineage`` that lead ``change``'s judge from its old triple
    to its new one (of its contract's trials, or of trials of any contract), in order;
    empty when none do. A claim's change is explained when one judge answered it under
    both triples and a succession of that judge explains the move."""
    judge = change.subject if change.scope == "judge" else change.after.judge_name
    if judge is None or (change.scope == "claim" and change.before.judge_name != judge):
        return []
    if change.before.stored_prompt != change.after.stored_prompt:
        return []  # a succession is measured on triples, not on vendor prompts
    return lineage.of_contract(change.contract_id).between(
        judge, change.before.triple, change.after.triple
    )


def explained_by(change: DriftChange, lineage: Lineage) -> DriftChange:
    """``change`` with the summary of the successions that explain it, if any do."""
    chain = chain_of(change, lineage)
    if not chain:
        return change
    return dataclasses.replace(change, succession="; ".join(r.summary() for r in chain))


def explain_drift(
    changes: Sequence[DriftChange], lineage: Lineage
) -> tuple[list[DriftChange], list[DriftChange]]:
    """Splits judge changes into drift (nothing explains them) and successions (a
    recorded succession does), each in the order given."""
    drift: list[DriftChange] = []
    successions: list[DriftChange] = []
    for change in changes:
        explained = explained_by(change, lineage) if lineage else change
        (drift if explained.succession is None else successions).append(explained)
    return drift, successions
