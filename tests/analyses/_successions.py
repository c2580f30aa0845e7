"""A history whose ``tone`` judge moves to another model, and the succession that says so."""

from __future__ import annotations

from collections.abc import Sequence

from tests.analyses._history import day, judge_evidence, plant_run
from tests.gaps._support import TRIPLE
from verifier.gaps.store import GapStore
from verifier.gaps.successions import SuccessionRow, SuccessionStore

OLD_MODEL = TRIPLE["model_id"]
NEW_MODEL = "claude-haiku-4-5-20260301"
OLD = [OLD_MODEL, TRIPLE["prompt_sha"], TRIPLE["sampling_sha"]]
NEW = [NEW_MODEL, TRIPLE["prompt_sha"], TRIPLE["sampling_sha"]]

TONE = (9, 9, 9, 9, 9, 5)
"""Passes of ten of the judged claim ``tone``, run by run: run 6 falls out of its history."""
CITES = (90, 92, 88, 91, 90, 60)
"""Passes of a hundred of the rubric claim ``cites``: run 6 falls too."""


def succession(
    *,
    succession_id: str = "s1",
    judge: str = "grader",
    old: Sequence[str] = OLD,
    new: Sequence[str] = NEW,
) -> SuccessionRow:
    """A succession of ``judge`` from ``old`` to ``new``, after a trial that passed."""
    return SuccessionRow(
        created_at="2026-11-28T12:00:00Z",
        succession_id=succession_id,
        judge=judge,
        contract_id="demo",
        trial_id=f"trial-{succession_id}",
        old_triples=[list(old)],
        new_triples=[list(new)],
        rule={"min_kappa": 0.6, "max_shift": 0.05},
        outcome="pass",
        figures={
            "agreement": 0.95,
            "kappa": 0.82,
            "kappa_ci": [0.7, 0.94],
            "difference": -0.02,
            "difference_ci": [-0.05, 0.01],
        },
        accepted_failed="",
        written="",
    )


def plant_switch(
    store: GapStore, *, switch_at: int, models: Sequence[str] = (OLD_MODEL, NEW_MODEL)
) -> None:
    """Runs ``r1``..``r6`` (on days 1 to 6) of ``cites`` and of ``tone``, judged by
    ``grader`` under ``models[0]`` before run ``switch_at`` and ``models[1]`` from it."""
    for n, (tone, cites) in enumerate(zip(TONE, CITES, strict=True), start=1):
        served = models[0] if n < switch_at else models[1]
        plant_run(
            store,
            f"r{n}",
            started_at=day(n),
            passes={"cites": (cites, 100), "tone": (tone, 10)},
            evidence={"tone": judge_evidence(model_id=served)},
        )


def record(target: str, *rows: SuccessionRow) -> None:
    """Saves ``rows`` in the successions table of the store ``target``."""
    with SuccessionStore(target) as store:
        for row in rows:
            store.save(row)
