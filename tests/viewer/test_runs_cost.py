"""The runs list shows a cost column only when a run it lists knows what its judges
cost (``browse.cost_known``), never a column of dashes."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from tests.gaps._support import begin
from tests.viewer._diff_support import viewer
from verifier.gaps.sqlite.store import SqliteStore


def _plant(path: Path, run_id: str, started_at: str, usage: dict[str, object]) -> None:
    with SqliteStore(path) as store:
        begin(store, run_id, started_at=started_at)
        store.finish_run(
            run_id,
            status="finished",
            finished_at=started_at,
            summary={"total_cases": 1, "passed_cases": 1, "usage": usage},
        )


def _costs(page: str) -> list[str]:
    return re.findall(r'<td class="num cost">([^<]*)</td>', page)


def test_no_cost_column_when_no_run_knows_its_cost(tmp_path: Path) -> None:
    db = tmp_path / "gaps.db"
    _plant(db, "unpriced", "2026-11-25T09:00:00Z", {"calls": 4})
    with viewer(db) as base:
        page = httpx.get(f"{base}/view/runs", timeout=30).text
        assert '<tr class="run" data-run="unpriced">' in page
        assert 'id="cost-column"' not in page and _costs(page) == []
        assert "judge calls" in page
        _plant(db, "priced", "2026-11-25T10:00:00Z", {"calls": 2, "cost_usd": 0.125})
        page = httpx.get(f"{base}/view/runs", timeout=30).text
        assert 'id="cost-column"' in page
        # Newest first: the priced run, then the one whose cost is unknown.
        assert _costs(page) == ["$0.1250", "—"]
        only = httpx.get(f"{base}/view/runs", params={"offset": 1}, timeout=30).text
        assert 'id="cost-column"' not in only and _costs(only) == []
