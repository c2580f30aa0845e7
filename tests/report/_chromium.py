"""Opening a report in headless Chromium and watching everything it does.

Chromium is Debian's (``/usr/bin/chromium``, or ``$VERIFIER_TEST_CHROMIUM``), driven
over the DevTools protocol by Playwright, never a browser Playwright downloads. Each
launch gets a fresh, empty profile. Every request the page makes is recorded, and any
that is not the report file itself (or a ``data:`` URI) is aborted, so a test can
never reach the network, and fails when a page tries.

Without Chromium or Playwright the browser tests are skipped, except under CI (``CI``
set), where they fail: a CI run must never pass by not opening the reports.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

CHROMIUM_VARIABLE = "VERIFIER_TEST_CHROMIUM"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _unavailable(reason: str) -> NoReturn:
    message = (
        f"no headless Chromium for the HTML report tests: {reason} "
        f"(install Debian's chromium package and pip install -e '.[dev]', or set "
        f"{CHROMIUM_VARIABLE})"
    )
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def chromium_executable() -> str:
    """The Chromium binary to drive, or a skip (a failure under CI) when there is none."""
    path = os.environ.get(CHROMIUM_VARIABLE) or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        _unavailable(f"{path} does not exist")
    return path


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (Playwright ``Browser``) for one test module.

    Not for the session: Playwright's synchronous API keeps an event loop of its own
    while it is open, which other modules' asyncio tests should never meet."""
    executable = chromium_executable()
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed")
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(
                executable_path=executable, headless=True, args=CHROMIUM_FLAGS
            )
        except Error as exc:
            _unavailable(f"{executable} did not start: {str(exc).splitlines()[0]}")
        yield browser
        browser.close()


@dataclass
class Visit:
    """A report opened in a fresh browser context, and what it did while loading."""

    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def visible(self, selector: str) -> int:
        """How many elements matching ``selector`` are displayed."""
        return int(self.page.locator(f"{selector}:visible").count())

    def text(self, selector: str) -> str:
        return str(self.page.locator(selector).inner_text())

    @property
    def foreign_requests(self) -> list[str]:
        """Requests for anything other than the report itself and ``data:`` URIs."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


@dataclass
class Browse:
    """Opens report files in ``browser``, one new context each; closes them at the end."""

    browser: Any
    contexts: list[Any] = field(default_factory=list)

    def open(self, path: Path, *, javascript: bool = True) -> Visit:
        context = self.browser.new_context(java_script_enabled=javascript)
        self.contexts.append(context)
        visit = Visit(page=None, url=path.resolve().as_uri())

        def route(route: Any) -> None:
            url = route.request.url
            if url == visit.url or url.startswith("data:"):
                route.continue_()
            else:
                route.abort()

        context.route("**/*", route)
        context.on("request", lambda request: visit.requests.append(request.url))
        page = context.new_page()
        page.on(
            "console",
            lambda message: (
                visit.console_errors.append(message.text) if message.type == "error" else None
            ),
        )
        page.on("pageerror", lambda error: visit.console_errors.append(str(error)))
        page.goto(visit.url, wait_until="load")
        visit.page = page
        return visit

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def browse(chromium: Any) -> Iterator[Browse]:
    """Opens report files in headless Chromium (``browse.open(path)``)."""
    opened = Browse(chromium)
    yield opened
    opened.close()
