"""The run page shows what each failing result was about: the case's input and output
from the stored content, the span that decided it marked, what a policy withheld, a
PASS/FAIL banner, claim descriptions and scale verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._cli import cli, verifier
from tests.conftest import EXAMPLES
from tests.report._chromium import Browse
from tests.report._evidence_runs import CASES, CONTRACT, HOSTILE, SECRET, marks_of, run_demo
from tests.report._runs import plant_run
from verifier.gaps.content import RecordPolicy
from verifier.gaps.sqlite.store import SqliteStore
from verifier.report.html import write_run_html


def page_of(store: Path, *run: str) -> str:
    out = store.parent / "report.html"
    result = cli("report", *run, "--store", str(store), "--html", str(out))
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def test_a_failing_case_shows_its_output_with_the_deciding_span_marked(tmp_path: Path) -> None:
    store, _ = run_demo(tmp_path)
    marks = marks_of(page_of(store))
    assert marks[("rude", "no_apology")] == ["Sorry"]
    assert marks[("rude", "no_slang")] == ["gonna"]
    # The citation not found is the quote itself, marked whole where it stands.
    assert marks[("rude", "quotes_grounded")] == ["refund is on its way"]
    assert ("calm", "no_apology") not in marks and ("long", "no_apology") in marks


def test_a_span_found_inside_a_combinator_is_marked(tmp_path: Path) -> None:
    nested = (
        CONTRACT
        + """\
  - id: no_slang_anywhere
    rubric: all
    field: output
    of:
      - rubric: not
        of:
          - {rubric: regex, pattern: gonna}
      - rubric: not_contains
        values: [lol]
"""
    )
    store, _ = run_demo(tmp_path, contract=nested)
    marks = marks_of(page_of(store))
    assert marks[("rude", "no_slang_anywhere")] == ["gonna"]


def test_the_content_shows_input_and_output_folded_with_their_lengths(tmp_path: Path) -> None:
    store, _ = run_demo(tmp_path)
    page = page_of(store)
    rude = str(CASES[1]["output"])
    assert f'<code>output</code> <span class="note">{len(rude)} characters</span>' in page
    assert "case: input, output, quotes.1 · span not found marked in quotes.1" in page
    assert "case: input, output · match marked in output" in page


def test_a_long_output_is_cut_around_the_deciding_span_with_its_length_shown(
    tmp_path: Path,
) -> None:
    store, _ = run_demo(tmp_path)
    page = page_of(store)
    long = str(CASES[2]["output"])
    assert f"{len(long)} characters" in page
    assert "… (2519 characters before) " in page
    assert long not in page


@pytest.mark.e2e
def test_markup_in_an_output_is_escaped_and_does_not_run(tmp_path: Path, browse: Browse) -> None:
    store, _ = run_demo(tmp_path)
    page = page_of(store)
    assert HOSTILE not in page and page.count("<script") == 1
    visit = browse.open(store.parent / "report.html")
    assert visit.page.evaluate("typeof window.__injected") == "undefined"
    row = visit.page.locator('tr.result[data-claim="no_slang"]').first
    row.locator("details.content summary").click()
    assert HOSTILE in row.locator("details.content").inner_text()
    assert row.locator("mark").inner_text() == "gonna"
    assert visit.foreign_requests == [] and visit.console_errors == []


def test_what_a_policy_redacted_is_said_and_never_shown(tmp_path: Path) -> None:
    store, _ = run_demo(tmp_path, policy=RecordPolicy(redact=("input",), max_bytes=30))
    page = page_of(store)
    assert SECRET not in page
    assert "input redacted (" in page and "output cut when recorded (" in page
    # The long case's apology lies past the 30 bytes kept of its output.
    assert " (the match at 4000-4005 lies past what was kept)" in page


def test_a_result_without_recorded_content_says_so(tmp_path: Path) -> None:
    path = tmp_path / "gaps.db"
    with SqliteStore(path) as store:
        plant_run(store)
    page = page_of(path)
    assert "content: no content was recorded for this case" in page


def test_the_banner_says_pass_or_fail_above_the_summary(tmp_path: Path) -> None:
    (tmp_path / "passing").mkdir()
    passing, _ = run_demo(tmp_path / "passing", cases=CASES[:1])
    page = page_of(passing)
    banner = page.index('<p id="verdict" class="banner banner-pass"><strong>PASS</strong>')
    assert banner < page.index('<h2 id="summary">')
    failing, _ = run_demo(tmp_path)
    assert "<strong>FAIL</strong> 2 of 3 cases failed" in page_of(failing)


@pytest.mark.e2e
def test_claims_show_their_description_and_scale_verdicts_their_score_on_the_scale(
    tmp_path: Path,
) -> None:
    store = tmp_path / "gaps.db"
    run = verifier(
        "run",
        str(EXAMPLES / "account-research.yaml"),
        "--cases",
        str(EXAMPLES / "account-research.cases.jsonl"),
        "--store",
        str(store),
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr
    page = page_of(store)
    assert '<div class="description">Metrics and facts name where they came from</div>' in page
    # A judge claim without a description shows its instruction.
    assert "The brief reads as a concise, formal note to an executive</div>" in page
    assert '0.25<div class="scale">2/5</div>' in page


def test_content_beyond_the_pages_budget_names_the_command_that_shows_it(tmp_path: Path) -> None:
    store, run_id = run_demo(tmp_path)
    out = tmp_path / "small.html"
    with SqliteStore(store) as opened:
        record = opened.run(run_id)
        assert record is not None
        view = write_run_html(opened, record, out, content_budget=100)
    shown = [r for r in view.results if r.fields]
    assert len(shown) == 1 and shown[0] is view.results[0]
    last = view.results[-1]
    assert last.content_note == (
        f"left out to keep the page small: verifier show {run_id} {last.case_id}"
    )
    assert last.content_note in out.read_text(encoding="utf-8")
