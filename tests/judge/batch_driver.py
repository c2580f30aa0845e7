"""``python -m tests.judge.batch_driver CONTRACT CASES STORE RUN_ID MAX_REQUESTS``: the
batch pre-pass of a run in a process of its own, with a small requests-per-batch
limit, so a test can kill it between two batch submissions."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from verifier.cases import read_cases
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.judge.batch import BatchLedger, BatchLimits, run_batch_prepass
from verifier.judge.setup import make_judge_phase
from verifier.llm.limits import CallLimits


async def prepass(
    contract: Path, cases: Path, store: str, run_id: str, limits: BatchLimits
) -> dict[str, str]:
    """Runs the pre-pass of run ``run_id`` and returns its errors by cache key."""
    loaded = load_contract(contract)
    phase = make_judge_phase(
        loaded,
        plan=build_plan(loaded),
        mode="live",
        store_path=store,
        recordings=None,
        limits=CallLimits(),
        run_id=run_id,
    )
    ledger = BatchLedger(store)
    try:
        return await run_batch_prepass(
            phase, read_cases(cases), ledger=ledger, run_id=run_id, limits=limits,
            poll_interval=0.01,
        )  # fmt: skip
    finally:
        ledger.close()
        await phase.aclose()


if __name__ == "__main__":
    contract, cases, store, run_id, most = sys.argv[1:6]
    errors = asyncio.run(
        prepass(Path(contract), Path(cases), store, run_id, BatchLimits(requests=int(most)))
    )
    print(len(errors))
