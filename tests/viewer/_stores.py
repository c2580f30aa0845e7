"""Stores for the viewer tests: real runs of the evidence demo through the real runner
(spans to mark, an output with markup), and a planted run with judged claims and
hostile case ids, reasons and evidence."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.report._evidence_runs import CASES, run_demo
from tests.report._runs import plant_run
from verifier.gaps.sqlite.store import SqliteStore

FILLERS = 60
"""Passing cases added to the first run, so its results fill several pages."""


@dataclass(frozen=True)
class DemoStore:
    path: Path
    older: str
    """The run of the demo's cases and the fillers: 189 results."""
    newer: str
    """The run of the demo's cases with the rude answer fixed: 9 results."""
    planted: str
    """The planted run (contract ``demo``) with hostile text and judged claims."""


def filler(n: int) -> dict[str, Any]:
    return {
        "id": f"filler-{n:02}",
        "input": "What is the plan?",
        "output": "The plan is ready.",
        "quotes": ["the plan"],
    }


def demo_store(tmp_path: Path) -> DemoStore:
    path, older = run_demo(tmp_path, cases=[*CASES, *map(filler, range(FILLERS))])
    fixed = [dict(c, output="We will fix it.") if c["id"] == "rude" else c for c in CASES]
    _, newer = run_demo(tmp_path, cases=fixed)
    with SqliteStore(path) as store:
        plant_run(store, "planted-run", started_at="2020-01-01T00:00:00Z", hostile=True)
    return DemoStore(path, older, newer, "planted-run")
