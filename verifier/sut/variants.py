"""Two variants of the system under test on every case: a baseline and a candidate.

Each chunk of cases is produced by both variants at once; then each variant's cases
are checked as its own stored run, so ``verifier compare BASELINE CANDIDATE`` pairs
them claim by claim. The candidate's cases carry the baseline's case under
``baseline`` (where ``--baseline`` puts a joined file), so its pairwise and
similarity claims compare candidate against baseline. The baseline's run checks the
contract without its pairwise and similarity claims (and any claim comparing
``baseline.*`` paths), which have nothing to compare it with there; its consistency
claims compare its own runs and stay. When the baseline's call failed for a case, the
candidate's claims comparing against it are errors naming that failure: nothing was
compared, so they are not failures of the candidate.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from verifier.cases import CaseLine
from verifier.contract.load import LoadedContract
from verifier.contract.models import claim_kind
from verifier.engine.comparative import BASELINE_KEY
from verifier.engine.plan import Plan
from verifier.engine.ports import ModelPhase
from verifier.engine.runner import Runner
from verifier.gaps.store import RunStatus
from verifier.results import ClaimResult, RunSummary
from verifier.sut.stage import SutStage


def compares_baseline(claim: Any) -> bool:
    """Whether ``claim`` compares an output with the baseline's: a pairwise or
    similarity claim, or any comparative claim whose ``outputs`` name ``baseline.*``."""
    if claim_kind(claim) != "comparative":
        return False
    if claim.compare in ("pairwise", "similarity") and not claim.outputs:
        return True
    return any(path.split(".")[0] == BASELINE_KEY for path in claim.outputs or ())


def without_comparisons(loaded: LoadedContract) -> LoadedContract | None:
    """The contract the baseline variant is checked against: its claims that do not
    compare with a baseline (``None`` when there are none: the baseline run is not kept).
    """
    kept = tuple(c for c in loaded.contract.claims if not compares_baseline(c))
    if not kept:
        return None
    if len(kept) == len(loaded.contract.claims):
        return loaded
    contract = loaded.contract.model_copy(update={"claims": kept})
    return dataclasses.replace(loaded, contract=contract)


def join_variants(
    baseline: Sequence[CaseLine], candidate: Sequence[CaseLine], *, baseline_run: str | None
) -> list[CaseLine]:
    """The candidate's lines with the baseline's case under ``baseline``."""
    joined: list[CaseLine] = []
    for base, line in zip(baseline, candidate, strict=True):
        if line.case is None:
            joined.append(line)
            continue
        case = {**line.case, BASELINE_KEY: base.case if base.case is not None else {}}
        sut: dict[str, Any] = dict(line.sut or {})
        sut["baseline"] = {
            "variant": (base.sut or {}).get("variant"),
            "run_id": baseline_run,
            **({"error": base.error} if base.error else {}),
        }
        joined.append(CaseLine(line.line, line.case_id, case, None, sut))
    return joined


class BaselineFailures:
    """The candidate runner's model phase, wrapped: on a case whose baseline call
    failed, each claim comparing against the baseline is an error naming that failure
    (the comparison was never made) instead of a failure of the candidate."""

    def __init__(self, inner: ModelPhase, plan: Plan) -> None:
        self.inner = inner
        self.comparing = [p for p in plan.model if compares_baseline(p.claim)]

    async def evaluate(
        self, chunk: Sequence[CaseLine], prior: Sequence[Mapping[str, ClaimResult]]
    ) -> list[dict[str, ClaimResult]]:
        out = await self.inner.evaluate(chunk, prior)
        for line, results in zip(chunk, out, strict=True):
            baseline = (line.sut or {}).get("baseline") or {}
            if not baseline.get("error"):
                continue
            reason = (
                f"not compared: the baseline variant {baseline.get('variant')!r} produced "
                f"no output for this case ({baseline['error']})"
            )
            for planned in self.comparing:
                if planned.id in results:
                    results[planned.id] = ClaimResult(
                        planned.id, "comparative", "error", None, reason, {}
                    )
        return out


async def run_variants(
    cases: Iterable[CaseLine],
    *,
    stages: tuple[SutStage, SutStage],
    baseline: Runner | None,
    candidate: Runner,
    chunk_size: int,
    total: int | None = None,
) -> tuple[RunSummary | None, RunSummary]:
    """Runs both variants over ``cases``; returns the baseline's and candidate's totals.

    The report sinks and progress are the candidate runner's; the baseline runner's
    sinks are finished too.
    """
    candidate.model_phase = BaselineFailures(candidate.model_phase, candidate.plan)
    base_summary = baseline.begin() if baseline is not None else None
    summary = candidate.begin()
    if candidate.progress:
        candidate.progress.start(total, len(candidate.plan.model))
    status: RunStatus = "interrupted"
    try:
        iterator = iter(cases)
        while chunk := list(islice(iterator, chunk_size)):
            produced_a, produced_b = await asyncio.gather(
                stages[0].produce(chunk), stages[1].produce(chunk)
            )
            if baseline is not None and base_summary is not None:
                await baseline.check_chunk(produced_a, base_summary)
            joined = join_variants(
                produced_a, produced_b, baseline_run=baseline.run_id if baseline else None
            )
            await candidate.check_chunk(joined, summary)
        status = "finished"
    finally:
        if candidate.progress:
            candidate.progress.close()
        for stage in stages:
            await stage.aclose()
        if baseline is not None and base_summary is not None:
            await baseline.end(base_summary, status=status)
        await candidate.end(summary, status=status)
    for runner, totals in ((baseline, base_summary), (candidate, summary)):
        if runner is not None and totals is not None:
            for sink in runner.sinks:
                sink.finish(totals)
    return base_summary, summary
