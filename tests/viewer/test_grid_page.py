"""``/view/runs/RUN/grid``: a run's cases by its claims, failing cases first, filtered,
paged, with the cells that flipped against another run marked; served by the real
application over a real store."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape

import httpx
import pytest

from tests.report._runs import INJECTED_CASE, INJECTED_REASON
from tests.server._support import running
from tests.viewer._stores import FILLERS, DemoStore, demo_store
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app
from verifier.viewer.app import CONTENT_SECURITY_POLICY


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return demo_store(tmp_path_factory.mktemp("grid"))


@pytest.fixture(scope="module")
def url(demo: DemoStore) -> Iterator[str]:
    settings = ServerSettings(port=0, store=str(demo.path))
    with running(settings, app=create_view_app(settings)) as base:
        yield base


def lines(html: str) -> list[str]:
    return [
        unescape(c) for c in re.findall(r'<tr class="grid-line[^"]*" data-case="([^"]+)"', html)
    ]


def every_line(url: str, path: str) -> list[str]:
    """The cases of every page of a grid, following its "next" links."""
    seen: list[str] = []
    while True:
        page = httpx.get(url + path)
        assert page.status_code == 200, page.text[:300]
        seen += lines(page.text)
        found = re.search(r'id="next" href="([^"]+)"', page.text)
        if found is None:
            return seen
        path = unescape(found.group(1))


def test_failing_cases_come_first_each_cell_its_verdict_and_reason(
    url: str, demo: DemoStore
) -> None:
    run = httpx.get(f"{url}/view/runs/{demo.older}").text
    page = httpx.get(f"{url}/view/runs/{demo.older}/grid").text
    assert f'href="/view/runs/{demo.older}/grid"' in run  # linked from the run page
    assert lines(page)[:3] == ["rude", "long", "calm"]
    assert re.findall(r'<tr class="grid-line( failing)?"', page)[:3] == [" failing"] * 2 + [""]
    headers = re.findall(r'<th class="claim-col" data-claim="([^"]+)"', page)
    assert headers == ["no_apology", "no_slang", "quotes_grounded"]
    cell = re.search(r'data-claim="no_slang" data-status="fail" title="([^"]+)"', page)
    assert cell is not None
    assert unescape(cell.group(1)).startswith("output contains banned value 'gonna'")
    # The line previews the output and links to the case's page, which opens.
    rude = re.search(r'data-case="rude">(.*?)</tr>', page, re.S)
    assert rude is not None and "Well, I am Sorry about that" in rude.group(1)
    link = re.search(r'class="case-link" href="([^"]+)"', rude.group(1))
    assert link is not None and httpx.get(url + link.group(1)).status_code == 200
    # Paged by case: every case once, failing ones first.
    assert every_line(url, f"/view/runs/{demo.older}/grid") == [
        "rude",
        "long",
        "calm",
        *(f"filler-{n:02}" for n in range(FILLERS)),
    ]


def test_the_grid_filters_by_claim_status_and_text(url: str, demo: DemoStore) -> None:
    grid = f"/view/runs/{demo.older}/grid"
    by_claim = httpx.get(f"{url}{grid}?claim=no_slang").text
    assert re.findall(r'<th class="claim-col" data-claim="([^"]+)"', by_claim) == ["no_slang"]
    assert lines(by_claim)[:2] == ["rude", "calm"]  # long passes no_slang
    assert every_line(url, f"{grid}?status=fail") == ["rude", "long"]
    assert every_line(url, f"{grid}?q=FILLER-07") == ["filler-07"]
    assert every_line(url, f"{grid}?q=banned+value+%27gonna") == ["rude"]
    none = httpx.get(f"{url}{grid}?q=no+such+text").text
    assert lines(none) == [] and 'id="no-lines"' in none
    bad = httpx.get(f"{url}{grid}?status=maybe")
    cursor = httpx.get(f"{url}{grid}?at=x9")
    other = httpx.get(f"{url}{grid}?against=no-such-run")
    assert bad.status_code == 400 and "status &#39;maybe&#39;: one of" in bad.text
    assert cursor.status_code == 400 and "not a page of the grid" in cursor.text
    assert other.status_code == 404 and "no run no-such-run in" in other.text


def test_cells_that_flipped_against_another_run_are_marked(url: str, demo: DemoStore) -> None:
    older = httpx.get(f"{url}/view/runs/{demo.older}/grid?against={demo.newer}").text
    newer = httpx.get(f"{url}/view/runs/{demo.newer}/grid?against={demo.older}").text
    plain = httpx.get(f"{url}/view/runs/{demo.older}/grid").text
    marked = re.findall(r'class="cell status-\w+ flipped flip-(\w+)" data-claim="([^"]+)"', older)
    assert marked == [("regressed", "no_apology"), ("regressed", "no_slang")]
    assert re.findall(r'flipped flip-(\w+)" data-claim="([^"]+)"', newer) == [
        ("fixed", "no_apology"),
        ("fixed", "no_slang"),
    ]
    row = re.search(r'data-case="([^"]+)"[^\n]*flip-regressed', older)
    assert row is not None and row.group(1) == "rude"
    assert "flipped" not in plain and 'class="flip-mark"' not in plain


def test_stored_text_is_escaped_and_nothing_inline_or_outside_is_loaded(
    url: str, demo: DemoStore
) -> None:
    page = httpx.get(f"{url}/view/runs/{demo.planted}/grid")
    older = httpx.get(f"{url}/view/runs/{demo.older}/grid").text
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert lines(page.text)[:3] == [INJECTED_CASE, "c3", "c2"]
    assert INJECTED_CASE not in page.text and INJECTED_REASON not in page.text
    assert "&lt;script&gt;window.__injected" in page.text
    # The demo's output holds markup, previewed as text.
    assert "&lt;script&gt;window.__injected = &#39;output&#39;" in older
    for html in (page.text, older):
        assert re.findall(r"<script\b[^>]*>", html) == [
            '<script src="/view/static/viewer.js" defer>'
        ]
        assert re.findall(r'(?:src|href)="(?:https?:)?//', html) == []
        tags = re.sub(r'"[^"]*"', '""', html)  # attribute values out of the way
        assert re.findall(r"<[a-z]+\b[^>]*\son[a-z]+=", tags) == []  # no handler attribute
