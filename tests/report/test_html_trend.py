"""``verifier report --trend --html FILE``: pass rates over runs and days with the audit's
alerts, checked in the file and in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result

from tests._cli import cli
from tests.analyses._history import day, plant_history, plant_run
from tests.report._chromium import Browse
from verifier.gaps.sqlite.store import SqliteStore

RATES = [0.90, 0.92, 0.88, 0.91, 0.90, 0.60]
HOSTILE_CLAIM = "<script>window.__injected = 'claim'</script>"
HOSTILE_RUN = '<img src="x" onerror="window.__injected = 1">'


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Six daily runs: ``cites`` falls to 0.60 in r6; the ``tone`` judge's served model
    moves at r3. A seventh run, on its own day, has a hostile id and claim id."""
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_history(store, *RATES)
        plant_run(store, HOSTILE_RUN, started_at=day(7), passes={HOSTILE_CLAIM: (1, 2)})
    return path


def trend(store_path: Path, *args: str) -> tuple[Result, Path]:
    out = store_path.parent / "trend.html"
    return cli("report", "--trend", *args, "--store", str(store_path), "--html", str(out)), out


def alert_lines(store_path: Path, *args: str) -> list[str]:
    audit = cli("audit", "--store", str(store_path), *args)
    return [line.strip() for line in audit.stdout.splitlines() if line.strip().startswith("ALERT")]


def test_the_trend_page_shows_the_audits_alerts(store_path: Path) -> None:
    result, out = trend(store_path)
    assert result.exit_code == 0, result.output
    assert result.stderr == f"wrote the trends of 3 claim(s) over 7 run(s) to {out}: 1 alert(s)\n"
    page = out.read_text()
    (line,) = alert_lines(store_path)
    assert line.startswith("ALERT demo/cites at run r6")
    assert f">{line}</li>" in page
    assert "served model claude-haiku-4-5-20251001 -&gt; claude-haiku-4-5-20260301" in page
    assert "<script" not in page
    assert HOSTILE_CLAIM not in page and HOSTILE_RUN not in page


def test_a_window_changes_the_alerts_as_in_the_audit(store_path: Path) -> None:
    result, out = trend(store_path, "--window", "3")
    assert result.exit_code == 0, result.output
    lines = alert_lines(store_path, "--window", "3")
    assert lines
    page = out.read_text()
    assert all(f">{line}</li>" in page for line in lines)
    assert page.count('<li class="alert"') == len(lines)


def test_a_run_narrows_the_listed_alerts_not_the_plots(store_path: Path) -> None:
    result, out = trend(store_path, "r5")
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'id="no-alerts"' in page
    assert page.count('class="alert-marker"') == 1
    unknown, _ = trend(store_path, "r9")
    assert unknown.exit_code == 2
    assert unknown.stderr == f"error: run r9 is not in {store_path}\n"


@pytest.mark.e2e
def test_the_trend_page_renders_in_chromium(store_path: Path, browse: Browse) -> None:
    _, out = trend(store_path)
    visit = browse.open(out)
    page = visit.page
    assert page.title() == f"verifier trends: {store_path}"
    assert visit.console_errors == []
    assert visit.requests == [visit.url]
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("typeof window.__injected") == "undefined"
    assert page.locator("img").count() == 0
    assert visit.text("#claim-count") == "3"
    assert visit.text("#run-count") == "7"
    # The hostile claim has one run on one day: a line of one point says nothing, so
    # its figures stand where its plots would.
    claims = ["demo/cites", "demo/tone"]
    for axis in ("run", "day"):
        plots = page.locator(f"svg.trend-plot[data-axis={axis}]")
        assert sorted(
            plots.nth(n).get_attribute("data-claim") for n in range(plots.count())
        ) == sorted(claims)
        for n in range(plots.count()):
            assert plots.nth(n).locator("polyline.rate-line").count() == 1
    cites = page.locator('svg.trend-plot[data-axis=run][data-claim="demo/cites"]')
    assert cites.locator("circle.point").count() == len(RATES)
    marker = page.locator("circle.alert-marker")
    assert marker.count() == 1
    assert (
        marker.locator("xpath=ancestor::*[local-name()='svg']").get_attribute("data-claim")
        == "demo/cites"
    )
    assert marker.locator("title").text_content().startswith("demo/cites at run r6")
    hostile = page.locator(f'tr.claim-trend[data-claim="demo/{HOSTILE_CLAIM}"]')
    assert hostile.locator(".figure[data-axis=run]").inner_text() == f"50.0% (run {HOSTILE_RUN})"
    assert hostile.locator(".figure[data-axis=day]").inner_text() == "50.0% (2026-11-07)"
