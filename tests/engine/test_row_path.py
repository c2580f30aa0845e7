"""The row path's shortcuts: the cycle collector during a run, the report's scores."""

from __future__ import annotations

import gc
import io
import json
import math
from pathlib import Path
from typing import Any

from verifier.analyses.audit import audit_store
from verifier.cases import CaseLine
from verifier.contract.load import load_contract
from verifier.engine.plan import build_plan
from verifier.engine.runner import Runner, RunOptions, run_sync
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report import make_writer
from verifier.report.json_report import case_json
from verifier.results import CaseResult, ClaimResult

CONTRACT = """\
contract: collector
version: 1
claims:
  - id: greets
    rubric: contains
    field: output
    values: [hello]
  - id: short
    rubric: length
    field: output
    max_chars: 30
"""


def test_a_run_seldom_wakes_the_cycle_collector(tmp_path: Path, write_contract) -> None:  # type: ignore[no-untyped-def]
    contract = load_contract(write_contract(CONTRACT))
    lines = [
        CaseLine(i + 1, f"c{i}", {"id": f"c{i}", "output": "hello" if i % 3 else "bye"})
        for i in range(3000)
    ]
    collections: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    before = gc.get_threshold()
    out = io.StringIO()
    with SqliteStore(tmp_path / "gaps.db") as store:
        # A first run imports what a run imports lazily (logging, the report), whose
        # collections are not the run's.
        plan = build_plan(contract)
        run_sync(Runner(contract, store, plan=plan, options=RunOptions()), lines[:10])
        runner = Runner(
            contract, store, plan=plan, sinks=[make_writer("json", out)], options=RunOptions()
        )
        gc.callbacks.append(count)
        try:
            summary = run_sync(runner, lines)
        finally:
            gc.callbacks.remove(count)
        audited = audit_store(store).ok
    # With the interpreter's threshold of 700 these 3,000 cases woke it about fifty
    # times; now the chunks' short-lived objects no longer do.
    assert len(collections) < 5, collections
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert (summary.total_cases, summary.passed_cases) == (3000, 2000)
    assert json.loads(out.getvalue())["total_cases"] == 3000
    assert audited


def test_the_report_rounds_scores_as_round_does() -> None:
    scores: list[float | None] = [1.0, 0.0, -0.0, 1, 0, 0.1234567891, 2 / 3, None, math.inf]
    results = tuple(
        ClaimResult(f"c{i}", "rubric", "pass", score, "why", {}) for i, score in enumerate(scores)
    )
    entry = case_json(CaseResult("case", 1, results, 1.0, True, None))
    got = [r["score"] for r in entry["results"]]
    want = [None if s is None else round(s, 6) for s in scores]
    assert got == want
    # The same types too: an integer score stays an integer, -0.0 keeps its sign.
    assert [type(s) for s in got] == [type(s) for s in want]
    assert math.copysign(1.0, got[2]) == -1.0
