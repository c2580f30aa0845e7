"""``verifier report RUN --html FILE``: the page's content, its bounds, its errors, and
what it does in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests._cli import cli
from tests.report._chromium import Browse
from tests.report._runs import (
    INJECTED_CASE,
    INJECTED_EVIDENCE,
    INJECTED_REASON,
    NOT_PASSED,
    STATUSES,
    plant_run,
)
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report.html import write_run_html


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "run-old", started_at="2026-11-24T10:00:00Z")
        plant_run(store, "run-new", started_at="2026-11-25T10:00:00Z", hostile=True)
    return path


def report(store_path: Path, *args: str) -> tuple[Result, Path]:
    out = store_path.parent / "report.html"
    return cli("report", *args, "--store", str(store_path), "--html", str(out)), out


def test_report_defaults_to_the_last_run_and_says_what_it_wrote(store_path: Path) -> None:
    result, out = report(store_path)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == (
        f"wrote the report of run run-new to {out}: 12 results, {NOT_PASSED} not passed"
    )
    page = out.read_text()
    assert "<title>verifier run run-new (demo)</title>" in page
    old, _ = report(store_path, "run-old")
    assert old.exit_code == 0
    assert "<title>verifier run run-old (demo)</title>" in out.read_text()


def test_untrusted_text_is_escaped_in_the_file(store_path: Path) -> None:
    _, out = report(store_path)
    page = out.read_text()
    for text in (INJECTED_REASON, INJECTED_CASE, INJECTED_EVIDENCE):
        assert text not in page
    assert "&lt;script&gt;window.__injected = &#39;reason&#39;&lt;/script&gt;" in page
    assert "&lt;img src=&#34;x&#34;" in page
    assert page.count("<script") == 1


def test_results_beyond_the_cap_are_counted_not_listed(store_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "capped.html"
    with SqliteStore(store_path) as store:
        record = store.run("run-old")
        assert record is not None
        view = write_run_html(store, record, out, max_results=2)
    assert (len(view.results), view.not_passed, view.left_out) == (2, NOT_PASSED, 3)
    page = out.read_text()
    assert page.count('<tr class="result"') == 2
    assert f"Showing the first 2 of {NOT_PASSED} results that did not pass; 3 more" in page


def test_a_run_that_never_ended_says_its_case_totals_are_unknown(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "killed", finished=False)
    result, out = report(path)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'id="run-status">running<' in page
    assert "not recorded: the run has not ended" in page
    assert 'id="total-results">12<' in page


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope",), "error: run nope is not in {store}\n"),
        (("--window", "4"), "error: --window applies to --trend only\n"),
    ],
)
def test_bad_requests_are_one_line_errors(
    store_path: Path, args: tuple[str, ...], message: str
) -> None:
    result, out = report(store_path, *args)
    assert result.exit_code == 2
    assert result.stderr == message.format(store=store_path)
    assert not out.exists()


def test_an_empty_or_missing_store_is_a_one_line_error(tmp_path: Path) -> None:
    missing = cli(
        "report", "--store", str(tmp_path / "none.db"), "--html", str(tmp_path / "r.html")
    )
    assert missing.exit_code == 2
    assert (
        missing.stderr
        == f"error: {tmp_path / 'none.db'}: no store found (run `verifier run` first or pass --store)\n"
    )
    SqliteStore(tmp_path / "empty.db").close()
    for trend in ((), ("--trend",)):
        empty = cli(
            "report",
            *trend,
            "--store",
            str(tmp_path / "empty.db"),
            "--html",
            str(tmp_path / "r.html"),
        )
        assert empty.exit_code == 2
        assert empty.stderr == f"error: {tmp_path / 'empty.db'}: no runs stored\n"
    assert not (tmp_path / "r.html").exists()


def test_an_unwritable_file_is_a_one_line_error(store_path: Path, tmp_path: Path) -> None:
    result = cli("report", "--store", str(store_path), "--html", str(tmp_path / "no" / "r.html"))
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {tmp_path / 'no' / 'r.html'}: cannot write the report: "
    )
    assert result.stderr.count("\n") == 1


@pytest.mark.e2e
def test_the_page_renders_in_chromium_without_errors_or_requests(
    store_path: Path, browse: Browse
) -> None:
    _, out = report(store_path)
    visit = browse.open(out)
    assert visit.page.title() == "verifier run run-new (demo)"
    assert visit.console_errors == []
    assert visit.requests == [visit.url]
    assert visit.text("#total-cases") == "4"
    assert visit.text("#failed-cases") == "3"
    assert visit.text("#not-passed") == str(NOT_PASSED)
    bars = visit.page.locator("svg.pass-rates g.claim-bar")
    assert bars.count() == len(STATUSES)
    assert [bars.nth(n).get_attribute("data-claim") for n in range(bars.count())] == list(STATUSES)
    rates = visit.page.locator("svg.pass-rates text.rate").all_text_contents()
    assert rates == ["50.0%", "100.0%", "33.3%"]
    triples = visit.page.locator("#judge-table tr.triple")
    assert triples.count() == 1
    assert "claude-haiku-4-5-20251001" in triples.inner_text()
    assert "strict" in triples.inner_text()


@pytest.mark.e2e
def test_filters_change_the_rows_shown(store_path: Path, browse: Browse) -> None:
    _, out = report(store_path)
    visit = browse.open(out)
    assert visit.visible("tr.result") == NOT_PASSED
    assert visit.text("#shown-count") == f"{NOT_PASSED} of {NOT_PASSED} shown"
    visit.page.select_option("#filter-claim", "formal_tone")
    assert visit.visible("tr.result") == 3
    assert visit.visible('tr.result[data-claim="cites_sources"]') == 0
    visit.page.uncheck('input.filter-status[value="fail"]')
    assert visit.visible("tr.result") == 2
    visit.page.uncheck('input.filter-status[value="error"]')
    shown = visit.page.locator("tr.result:visible")
    assert shown.count() == 1
    assert shown.get_attribute("data-status") == "skipped"
    visit.page.select_option("#filter-claim", "")
    visit.page.check('input.filter-status[value="fail"]')
    assert visit.visible("tr.result") == 4
    assert visit.text("#shown-count") == f"4 of {NOT_PASSED} shown"
    assert visit.console_errors == []


@pytest.mark.e2e
def test_without_javascript_every_result_shows_and_the_filters_hide(
    store_path: Path, browse: Browse
) -> None:
    _, out = report(store_path)
    visit = browse.open(out, javascript=False)
    assert visit.visible("tr.result") == NOT_PASSED
    assert visit.visible("#filters") == 0
    assert visit.requests == [visit.url]


@pytest.mark.e2e
def test_markup_in_an_output_does_not_run(store_path: Path, browse: Browse) -> None:
    _, out = report(store_path)
    visit = browse.open(out)
    page = visit.page
    assert page.evaluate("typeof window.__injected") == "undefined"
    assert page.evaluate("document.scripts.length") == 1
    assert page.locator("img").count() == 0
    assert (
        page.locator(f'tr.result[data-claim="cites_sources"] >> text={INJECTED_REASON}').count()
        == 1
    )
    hostile = page.locator("tr.result").filter(has_text="window.__injected = 'reason'").first
    assert hostile.locator("td.case").inner_text() == INJECTED_CASE
    hostile.locator("details summary").click()
    assert INJECTED_EVIDENCE in hostile.locator("details pre").inner_text()
    assert visit.console_errors == []


@pytest.mark.parametrize(
    ("summary", "shown"),
    [
        ({"total_cases": 4, "average_score": "high"}, ["4", "—", "—", "—"]),
        ({"import_failed": "stopped", "usage": {"calls": "many"}}, ["not recorded by this run"]),
    ],
)
def test_a_summary_of_another_shape_shows_what_it_has(
    tmp_path: Path, summary: dict[str, Any], shown: list[str]
) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "odd", finished=False)
        store.finish_run(
            "odd", status="interrupted", finished_at="2026-11-25T11:00:00Z", summary=summary
        )
    result, out = report(path)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    cells = re.findall(
        r'<dd id="(?:total|passed|failed)-cases"[^>]*>([^<]*)<|<dd id="average-score">([^<]*)<',
        page,
    )
    assert ["".join(cell) for cell in cells] == shown
    assert 'id="judge-usage"' not in page
