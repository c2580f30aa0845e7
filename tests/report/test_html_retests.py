"""The run's HTML page shows the test-retest agreement stored by ``verifier audit
--resample``: per judge triple, of that run only, escaped like everything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import TRIPLE
from tests.report._chromium import Browse
from tests.report._runs import plant_run
from verifier.gaps.resamples import ResampleRow, ResampleStore
from verifier.gaps.sqlite.store import SqliteStore
from verifier.results import wilson_95

HOSTILE_MODEL = "<img src=x onerror=\"window.__injected = 'model'\">"


def retest(run_id: str, claim_id: str, agreed: bool, *, model: str, resample: str) -> ResampleRow:
    return ResampleRow(
        created_at="2026-11-26T15:00:00Z",
        resample_id=resample,
        run_id=run_id,
        seed=7,
        contract_id="demo",
        case_id="c0",
        claim_id=claim_id,
        model_id=model,
        requested_model=TRIPLE["model_id"],
        prompt_sha=TRIPLE["prompt_sha"],
        sampling_sha=TRIPLE["sampling_sha"],
        stored_status="pass",
        resampled_status="pass" if agreed else "fail",
        agreed=agreed,
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Two runs; run-new's verdicts re-asked five times over two audits (4 agreed) and
    once under another served model; run-old's once."""
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "run-old", started_at="2026-11-24T10:00:00Z")
        plant_run(store, "run-new", started_at="2026-11-25T10:00:00Z")
    model = TRIPLE["model_id"]
    rows = [
        retest("run-new", "formal_tone", True, model=model, resample="r1"),
        retest("run-new", "formal_tone", True, model=model, resample="r1"),
        retest("run-new", "formal_tone", False, model=model, resample="r2"),
        retest("run-new", "formal_tone", True, model=model, resample="r2"),
        retest("run-new", "formal_tone", True, model=model, resample="r2"),
        retest("run-new", "formal_tone", False, model=HOSTILE_MODEL, resample="r2"),
        retest("run-old", "formal_tone", False, model=model, resample="r0"),
    ]
    with ResampleStore(str(path)) as resamples:
        resamples.save(rows)
    return path


def write_page(store_path: Path, *args: str) -> Path:
    out = store_path.parent / "report.html"
    result = cli("report", *args, "--store", str(store_path), "--html", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_the_page_lists_the_runs_retests_per_triple(store_path: Path) -> None:
    page = write_page(store_path).read_text(encoding="utf-8")
    assert page.count('<tr class="retest">') == 2
    low, high = wilson_95(4, 5)
    row = page.split('<tr class="retest">')[1].split("</tr>")[0]
    assert TRIPLE["model_id"] in row and TRIPLE["prompt_sha"][:12] in row
    assert '<td class="num">5</td><td class="num">4</td><td class="num">80.0%</td>' in row
    assert f"{100 * low:.1f}\N{EN DASH}{100 * high:.1f}%" in row
    assert HOSTILE_MODEL not in page
    assert "&lt;img src=x onerror=&#34;window.__injected" in page
    old = write_page(store_path, "run-old").read_text(encoding="utf-8")
    assert old.count('<tr class="retest">') == 1 and "0.0%" in old


def test_a_run_never_resampled_says_how_to_measure(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store, "run-1")
    page = write_page(path).read_text(encoding="utf-8")
    assert 'id="retest-table"' not in page
    assert "verifier audit --resample N --run run-1" in page
    assert not ResampleStore(str(path), read_only=True).all()  # the report creates nothing


@pytest.mark.e2e
def test_the_retests_render_in_chromium(store_path: Path, browse: Browse) -> None:
    out = write_page(store_path)
    visit = browse.open(out)
    assert visit.console_errors == [] and visit.requests == [visit.url]
    rows = visit.page.locator("#retest-table tr.retest")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").all_inner_texts()[3:7] == ["formal_tone", "5", "4", "80.0%"]
    assert rows.nth(1).locator("td").first.inner_text() == HOSTILE_MODEL
    assert visit.page.evaluate("typeof window.__injected") == "undefined"
    visit.page.locator("#test-retest").scroll_into_view_if_needed()
    visit.page.screenshot(path=str(store_path.parent / "retests.png"), full_page=True)
