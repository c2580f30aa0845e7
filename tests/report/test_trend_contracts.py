"""The trend page groups claims by contract, each on its own runs and days, shows a
figure where a plot would have one point, and stays compact with 30+ claims."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import plant_run
from tests.report._chromium import Browse
from verifier.gaps.sqlite.store import SqliteStore
from verifier.gaps.store import GapStore

CLAIMS = [
    f"claim_{n:02d}{'_with_a_long_descriptive_name' if n % 5 == 0 else ''}" for n in range(34)
]


def plant(store: GapStore, contract: str, run_id: str, at: str, passes: Mapping[str, int]) -> None:
    """A run of ``contract`` in which each claim passes ``passes[claim]`` of 10 cases."""
    tallies = {claim: (passed, 10) for claim, passed in passes.items()}
    plant_run(store, run_id, started_at=at, passes=tallies, contract_id=contract)


@pytest.fixture
def page_path(tmp_path: Path) -> Path:
    """``support-bot``: 34 claims over 8 daily runs; ``extraction``: 2 claims, 2 runs
    among those; ``one-day``: 2 claims, 2 runs on one day."""
    store_path = tmp_path / "gaps.db"
    with SqliteStore(store_path) as store:
        for d in range(1, 9):
            passes = {c: (d * 7 + i * 3) % 10 + 1 for i, c in enumerate(CLAIMS)}
            plant(store, "support-bot", f"sb-{d}", f"2026-11-{d:02d}T10:00:00Z", passes)
            if d in (3, 6):
                passes = {"spans_grounded": 8, "industry_known": 9 - d // 3}
                plant(store, "extraction", f"ex-{d}", f"2026-11-{d:02d}T12:00:00Z", passes)
        plant(store, "one-day", "od-1", "2026-11-05T09:00:00Z", {"fresh": 6, "other": 10})
        plant(store, "one-day", "od-2", "2026-11-05T15:00:00Z", {"fresh": 10, "other": 4})
    out = tmp_path / "trend.html"
    result = cli("report", "--trend", "--store", str(store_path), "--html", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_claims_are_grouped_by_contract_each_on_its_own_axes(page_path: Path) -> None:
    page = page_path.read_text(encoding="utf-8")
    assert re.findall(r'<section class="contract-trends" [^>]*data-contract="([^"]+)"', page) == [
        "support-bot",
        "extraction",
        "one-day",
    ]
    assert page.count('<tr class="claim-trend"') == 34 + 2 + 2
    assert page.count('data-axis="day" role="img"') == 34 + 2  # one-day's: figures instead
    assert '<span class="figure" data-axis="day">80.0% (2026-11-05)</span>' in page


@pytest.mark.e2e
def test_the_page_reads_in_chromium(page_path: Path, browse: Browse) -> None:
    visit = browse.open(page_path)
    page = visit.page
    assert visit.console_errors == [] and visit.requests == [visit.url]
    groups = page.locator("section.contract-trends")
    assert [groups.nth(n).get_attribute("data-contract") for n in range(groups.count())] == [
        "support-bot",
        "extraction",
        "one-day",
    ]
    assert page.locator("section[data-contract=support-bot] tr.claim-trend").count() == 34
    # extraction ran twice among support-bot's eight runs: on its own axis its two
    # points are the plot's two ends, not two slots in the middle of twelve.
    ends = page.locator(
        'svg.trend-plot[data-axis=run][data-claim="extraction/spans_grounded"] circle.point'
    )
    assert [ends.nth(n).get_attribute("cx") for n in range(ends.count())] == ["6.0", "234.0"]
    # one-day's runs cover a single day: no plot of one point, the figure instead.
    one_day = page.locator("section[data-contract=one-day]")
    assert one_day.locator("svg[data-axis=day]").count() == 0
    figures = one_day.locator(".figure[data-axis=day]")
    assert [figures.nth(n).inner_text() for n in range(2)] == [
        "80.0% (2026-11-05)",
        "70.0% (2026-11-05)",
    ]
    assert one_day.locator("svg[data-axis=run]").count() == 2
    # 34 claims stay a table of rows: at most 60 px a claim, nothing wider than the window.
    height = page.locator("section[data-contract=support-bot]").bounding_box()["height"]
    assert height < 34 * 60
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
