"""Planting runs with chosen pass rates and judge triples, through a store's own API."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.gaps._support import TRIPLE, begin, contract_sha, draft
from verifier.gaps.store import GapStore

REQUESTED = "claude-haiku-4-5"


def judge_evidence(
    *,
    model_id: str = TRIPLE["model_id"],
    prompt_sha: str = TRIPLE["prompt_sha"],
    sampling_sha: str = TRIPLE["sampling_sha"],
    judge_name: str = "grader",
    requested_model: str = REQUESTED,
) -> dict[str, Any]:
    """Evidence of a judge row as the judge phase records it."""
    return {
        "judge": {"model_id": model_id, "prompt_sha": prompt_sha, "sampling_sha": sampling_sha},
        "judge_name": judge_name,
        "requested_model": requested_model,
        "verdict": "yes",
    }


def result(
    run_id: str,
    n: int,
    claim_id: str,
    status: str,
    *,
    evidence: Mapping[str, Any] | None = None,
    recorded_at: str = "2026-11-25T10:00:00Z",
) -> dict[str, Any]:
    """One draft: a judge row when ``evidence`` is given, else a rubric row."""
    return draft(
        n,
        run_id,
        row_id=f"{run_id}:{n}:{claim_id}",
        case_id=f"case-{n}",
        claim_id=claim_id,
        kind="judge" if evidence is not None else "rubric",
        status=status,
        score={"pass": 1.0, "fail": 0.0}.get(status),
        evidence=dict(evidence) if evidence is not None else {"span": [0, 4]},
        recorded_at=recorded_at,
    )


def plant_run(
    store: GapStore,
    run_id: str,
    *,
    started_at: str,
    passes: Mapping[str, tuple[int, int]],
    evidence: Mapping[str, Mapping[str, Any]] | None = None,
    recorded_at: str | None = None,
    finish: bool = True,
    options: dict[str, Any] | None = None,
    contract_id: str = "demo",
) -> None:
    """A run of ``contract_id`` in which each claim passes ``passed`` of ``total`` cases.

    Args:
        passes: ``claim_id -> (passed, total)``; the passes come first.
        evidence: Judge evidence of the claims that are judged.
        recorded_at: The rows' time (default: ``started_at``).
    """
    begin(store, run_id, started_at=started_at, options=options, contract_id=contract_id)
    drafts = []
    for claim_id, (passed, total) in passes.items():
        judged = (evidence or {}).get(claim_id)
        for n in range(total):
            status = "pass" if n < passed else "fail"
            drafts.append(
                result(
                    run_id,
                    len(drafts) + 1,
                    claim_id,
                    status,
                    evidence=judged,
                    recorded_at=recorded_at or started_at,
                )
                | {"contract_id": contract_id, "contract_sha256": contract_sha(contract_id)}
            )
    store.append(drafts)
    if finish:
        store.finish_run(run_id, status="finished", finished_at=started_at, summary={})


def day(n: int, hour: int = 10) -> str:
    """A UTC time on day ``n`` of November 2026."""
    return f"2026-11-{n:02d}T{hour:02d}:00:00Z"


def plant_history(store: GapStore, *rates: float) -> None:
    """Run n (``rn``, on day n) passes ``rate`` of 100 cases of ``cites``; its ``tone``
    judge passes 2 of 2 and its served model moves at run 3."""
    for n, rate in enumerate(rates, start=1):
        served = "claude-haiku-4-5-20251001" if n < 3 else "claude-haiku-4-5-20260301"
        plant_run(
            store,
            f"r{n}",
            started_at=day(n),
            passes={"cites": (round(rate * 100), 100), "tone": (2, 2)},
            evidence={"tone": judge_evidence(model_id=served)},
        )


def planted_store(path: Path, *rates: float) -> Path:
    """A SQLite store at ``path`` holding ``plant_history(*rates)``."""
    from verifier.gaps.sqlite.store import SqliteStore

    with SqliteStore(path) as store:
        plant_history(store, *rates)
    return path
