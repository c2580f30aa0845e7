"""``/view/panel/RUN``: the case's output beside the verdicts, the spans that decided
its failing results marked as on the case page, and a plain line instead of an empty box
when the run recorded no case text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from tests.report._evidence_runs import HOSTILE, run_demo
from tests.viewer._diff_support import elements, viewer
from verifier.gaps.content import RecordPolicy


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    path, run_id = run_demo(tmp_path_factory.mktemp("panel-full"))
    with viewer(path) as base:
        yield base, run_id


def _panel(base: str, run_id: str, case: str) -> str:
    page = httpx.get(f"{base}/view/panel/{run_id}", params={"case": case}, timeout=30)
    assert page.status_code == 200
    return page.text


def _marks(html: str) -> list[str]:
    section = html.split('id="case-output"', 1)[1].split("</section>", 1)[0]
    return [unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", section, re.S)]


def test_the_panel_shows_the_output_with_the_failing_spans_marked(full: tuple[str, str]) -> None:
    base, run_id = full
    html = _panel(base, run_id, "rude")
    # The output, then the quote the citation did not find (a span points into it).
    assert [f["data-path"] for f in elements(html, "field")] == ["output", "quotes.1"]
    # The regex's match, the banned value and the quote, as the case page marks them.
    assert _marks(html) == ["Sorry", "gonna", "refund is on its way"]
    assert "match, banned value marked" in html
    # The output's markup is text, not markup of the panel.
    assert HOSTILE not in html
    assert "&lt;script&gt;window.__injected = &#39;output&#39;&lt;/script&gt;" in html
    # Beside the verdicts: both are in the same panel body.
    body = html.split('class="panel-body"', 1)[1]
    assert body.index('id="case-output"') < body.index('id="assertions"')


def test_a_passing_case_shows_its_output_unmarked(full: tuple[str, str]) -> None:
    base, run_id = full
    html = _panel(base, run_id, "calm")
    assert "Open settings and choose reset password." in html
    assert _marks(html) == []
    assert 'id="no-output"' not in html


def test_a_run_that_recorded_no_case_text_says_so_instead_of_an_empty_box(
    tmp_path: Path,
) -> None:
    path, run_id = run_demo(tmp_path, policy=RecordPolicy(content="none"))
    with viewer(path) as base:
        html = _panel(base, run_id, "rude")
    assert elements(html, "field") == []
    (line,) = re.findall(r'<p class="no-output" id="no-output">(.*?)</p>', html)
    assert unescape(line) == (
        "No output to show: the run recorded no case text (record: content: none)."
    )
    assert "Sorry" not in html
