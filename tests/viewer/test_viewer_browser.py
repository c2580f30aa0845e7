"""The viewer in headless Chromium: runs list -> run -> case -> the case in another run,
filters, text search, pagination, the diff picker; hostile text shown as text; nothing
fetched from anywhere but the viewer itself."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.report._evidence_runs import HOSTILE
from tests.report._runs import INJECTED_CASE, INJECTED_REASON
from tests.server._support import running
from tests.viewer._stores import DemoStore, demo_store
from verifier.results import wilson_95
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app
from verifier.viewer.app import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.e2e

SCREENSHOT = os.environ.get("VERIFIER_VIEWER_SCREENSHOTS")
"""A folder to save the pages' screenshots in, to look at them."""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return demo_store(tmp_path_factory.mktemp("viewer"))


@pytest.fixture(scope="module")
def url(demo: DemoStore) -> Iterator[str]:
    settings = ServerSettings(port=0, store=str(demo.path))
    with running(settings, app=create_view_app(settings)) as base:
        yield base


class Tab:
    """A page in a fresh context that may reach the viewer and nothing else."""

    def __init__(self, chromium: Any, base: str, *, javascript: bool = True) -> None:
        self.context = chromium.new_context(java_script_enabled=javascript)
        self.base = base
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith(self.base + "/") or url.startswith("data:"):
            route.continue_()
        else:
            route.abort()

    def go(self, path: str) -> Any:
        return self.page.goto(self.base + path, wait_until="load")

    def texts(self, selector: str) -> list[str]:
        return [str(t) for t in self.page.locator(selector).all_inner_texts()]

    def attrs(self, selector: str, name: str) -> list[str]:
        return [
            str(self.page.locator(selector).nth(i).get_attribute(name))
            for i in range(self.page.locator(selector).count())
        ]

    def shot(self, name: str) -> None:
        if SCREENSHOT:
            self.page.screenshot(path=str(Path(SCREENSHOT) / f"{name}.png"), full_page=True)

    @property
    def foreign(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(self.base + "/")]


@pytest.fixture
def tab(chromium: Any, url: str) -> Iterator[Tab]:
    opened = Tab(chromium, url)
    yield opened
    opened.context.close()


def test_runs_list_to_run_to_case_to_the_case_in_another_run(tab: Tab, demo: DemoStore) -> None:
    tab.go("/")
    assert tab.page.url.endswith("/view/runs")
    # Newest first: the fixed run, the first demo run, the planted run of 2020.
    assert tab.attrs("tr.run", "data-run") == [demo.newer, demo.older, demo.planted]
    assert tab.page.locator("#run-count").inner_text() == "3 runs"
    tab.shot("runs")
    tab.page.locator(f"tr.run[data-run='{demo.older}'] a.run-link").click()
    tab.page.wait_for_url(f"**/view/runs/{demo.older}")
    assert tab.page.locator("#verdict").inner_text().startswith("FAIL")
    claims = tab.attrs("tr.claim", "data-claim")
    assert claims == ["no_apology", "no_slang", "quotes_grounded"]
    # 61 of 63 answers do not apologise: the pass rate and its Wilson interval.
    row = tab.texts("tr.claim[data-claim='no_apology'] td")
    low, high = wilson_95(61, 63)
    assert row[1] == "96.8%" and row[2] == f"{100 * low:.1f}\u2013{100 * high:.1f}%"
    assert tab.page.locator("tr.result").count() == 50
    tab.shot("run")
    tab.page.locator("tr.result[data-claim='no_apology'] a.case-link", has_text="rude").click()
    tab.page.wait_for_url("**/cases/rude")
    assert tab.page.locator("#case-id").inner_text() == "rude"
    assert "Sorry" in tab.texts("div.case-field[data-path='output'] mark")
    assert set(tab.attrs("#results tr.result", "data-claim")) == set(claims)
    tab.shot("case")
    others = tab.page.locator("a.other-run")
    assert others.count() == 1
    others.click()
    tab.page.wait_for_url(f"**/view/runs/{demo.newer}/cases/rude")
    assert (
        tab.page.locator("div.case-field[data-path='output'] pre").inner_text() == "We will fix it."
    )
    assert not tab.foreign and not tab.errors


def test_filter_by_claim_and_status_search_and_paginate(tab: Tab, demo: DemoStore) -> None:
    tab.go(f"/view/runs/{demo.older}")
    first = tab.attrs("tr.result", "data-seq")
    tab.page.locator("#next").click()
    tab.page.wait_for_load_state()
    second = tab.attrs("tr.result", "data-seq")
    assert len(second) == 50 and int(second[0]) > int(first[-1])
    tab.page.locator("#next").click()
    tab.page.wait_for_load_state()
    tab.page.locator("#next").click()
    tab.page.wait_for_load_state()
    last = tab.attrs("tr.result", "data-seq")
    assert len(last) == 189 - 150 and tab.page.locator("a#next").count() == 0
    tab.page.locator("#previous").click()
    tab.page.wait_for_load_state()
    tab.page.locator("#previous").click()
    tab.page.wait_for_load_state()
    assert tab.attrs("tr.result", "data-seq") == second
    tab.page.locator("#first").click()
    tab.page.wait_for_load_state()
    assert tab.attrs("tr.result", "data-seq") == first
    # The status filter applies as soon as it is chosen (the script submits it).
    with tab.page.expect_navigation():
        tab.page.select_option("#filter-status", "fail")
    assert "status=fail" in tab.page.url
    statuses = tab.attrs("tr.result", "data-status")
    assert statuses and set(statuses) == {"fail"}
    with tab.page.expect_navigation():
        tab.page.select_option("#filter-claim", "no_slang")
    assert [t.strip() for t in tab.texts("tr.result td.case")] == ["rude"]
    tab.go(f"/view/runs/{demo.older}")
    tab.page.fill("#filter-text", "LONG")
    tab.page.locator("#apply-filters").click()
    tab.page.wait_for_load_state()
    assert {t.strip() for t in tab.texts("tr.result td.case")} == {"long"}
    # The decisive span, inside the folded case of the result.
    marked = tab.page.locator("tr.result[data-claim='no_apology'] mark").first.text_content()
    assert marked == "sorry"
    assert not tab.foreign and not tab.errors


def test_filters_work_without_the_script(chromium: Any, url: str, demo: DemoStore) -> None:
    tab = Tab(chromium, url, javascript=False)
    try:
        tab.go(f"/view/runs/{demo.older}")
        tab.page.select_option("#filter-status", "error")
        tab.page.locator("#apply-filters").click()
        tab.page.wait_for_load_state()
        assert "status=error" in tab.page.url
        assert tab.page.locator("#no-results").count() == 1
    finally:
        tab.context.close()


def test_two_runs_picked_open_their_diff(tab: Tab, demo: DemoStore) -> None:
    tab.go("/view/runs")
    assert tab.page.locator("#compare").is_disabled()
    tab.page.locator(f"tr.run[data-run='{demo.older}'] input[name=a]").check()
    tab.page.locator(f"tr.run[data-run='{demo.newer}'] input[name=b]").check()
    assert tab.page.locator("#compare").is_enabled()
    with tab.page.expect_navigation():
        tab.page.locator("#compare").click()
    address = urlsplit(tab.page.url)
    assert address.path == "/view/diff"
    assert parse_qs(address.query) == {"a": [demo.older], "b": [demo.newer]}


def test_hostile_text_is_shown_as_text_and_nothing_inline_runs(tab: Tab, demo: DemoStore) -> None:
    response = tab.go(f"/view/runs/{demo.older}?q=rude")
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    html = tab.page.content()
    assert HOSTILE not in html
    output = tab.page.locator("tr.result[data-claim='no_apology'] pre.text", has_text="Well")
    assert HOSTILE in str(output.text_content())
    tab.go(f"/view/runs/{demo.planted}")
    assert INJECTED_REASON in tab.texts("tr.result div.reason")
    assert INJECTED_CASE in [t.strip() for t in tab.texts("tr.result td.case")]
    tab.page.locator("tr.result a.case-link", has_text="onerror").first.click()
    tab.page.wait_for_load_state()
    assert tab.page.locator("#case-id").inner_text() == INJECTED_CASE
    tab.go(f"/view/runs/{demo.planted}/judges")
    assert tab.attrs("#judge-table tr.triple", "data-claim") == ["formal_tone"]
    assert tab.page.evaluate("window.__injected") is None
    # The only scripts are the viewer's own file.
    assert tab.attrs("script", "src") == ["/view/static/viewer.js"]
    assert not tab.foreign and not tab.errors


def test_an_inline_script_would_be_refused_by_the_policy(tab: Tab, demo: DemoStore) -> None:
    tab.go("/view/runs")
    ran = tab.page.evaluate(
        """() => new Promise(resolve => {
            document.addEventListener('securitypolicyviolation', () => resolve('refused'));
            const s = document.createElement('script');
            s.textContent = "window.__ran = true";
            document.body.appendChild(s);
            setTimeout(() => resolve(window.__ran ? 'ran' : 'refused'), 500);
        })"""
    )
    assert ran == "refused"
