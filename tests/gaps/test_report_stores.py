"""``verifier report`` reads SQLite and PostgreSQL stores alike (the pages themselves are
tested in tests/report)."""

from __future__ import annotations

from pathlib import Path

from tests._cli import cli
from tests.analyses._history import day, plant_run
from tests.gaps._backends import Backend
from tests.report._runs import NOT_PASSED
from tests.report._runs import plant_run as plant_report_run


def test_both_reports_read_either_store(store_backend: Backend, tmp_path: Path) -> None:
    with store_backend.open() as store:
        for n, rate in enumerate([90, 92, 88, 91, 60], start=1):
            plant_run(store, f"r{n}", started_at=day(n), passes={"cites": (rate, 100)})
        plant_report_run(store, "r6", started_at=day(6))  # no run may be called "last"
        location = store.location
    env = {"VERIFIER_STORE": store_backend.target}
    page = tmp_path / "run.html"
    result = cli("report", "--html", str(page), env=env)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"wrote the report of run r6 to {page}: 12 results")
    text = page.read_text()
    assert f'id="not-passed">{NOT_PASSED}<' in text
    assert text.count('class="claim-bar"') == 3
    assert location in text
    trend = tmp_path / "trend.html"
    result = cli("report", "r5", "--trend", "--html", str(trend), env=env)
    assert result.exit_code == 0, result.output
    text = trend.read_text()
    assert "ALERT demo/cites at run r5" in text
    assert text.count('class="chart trend-plot"') == 2  # cites, by run and by day
    assert text.count('class="figure"') == 2 * 3  # the last run's 3 claims: one point each
    if store_backend.name == "postgres":
        password = store_backend.target.split("@")[0].rsplit(":", 1)[1]
        for output in (page.read_text(), text, result.output):
            assert password not in output
