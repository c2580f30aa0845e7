"""Stores of real runs, a served viewer, and Chromium pages over it, for the tests of the
diff, trends and panel pages."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from tests._cli import verifier
from tests.server._support import running
from verifier.server.settings import ServerSettings
from verifier.viewer.app import viewer_router

# The contract of the runs these pages are tried on: two rubric claims over one output.
CONTRACT = """\
contract: answers
version: 1
llm_fields: [output]
claims:
  - id: cites
    rubric: regex
    field: output
    pattern: '\\[source: [a-z]+\\]'
  - id: short
    rubric: length
    field: output
    max_words: 12
"""


def run(where: Path, contract: Path, cases: Path, *extra: str, store: str = "gaps.db") -> str:
    """``verifier run CONTRACT --cases CASES --store STORE`` in ``where``; the run id."""
    result = verifier(
        "run",
        str(contract),
        "--cases",
        str(cases),
        "--store",
        store,
        "--format",
        "json",
        *extra,
        cwd=where,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    run_id: str = json.loads(result.stdout)["run_id"]
    return run_id


def write_cases(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


@contextmanager
def viewer(store: Path | str, *, frame_ancestors: tuple[str, ...] = ()) -> Iterator[str]:
    """The viewer alone over ``store``, served on a free loopback port; its base URL."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(viewer_router(str(store), frame_ancestors=frame_ancestors))
    with running(ServerSettings(port=0, store=str(store)), app=app) as url:
        yield url


class Elements(HTMLParser):
    """The attributes of every element of a page that has a given class."""

    def __init__(self, css_class: str) -> None:
        super().__init__()
        self.css_class = css_class
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.css_class in (values.get("class") or "").split():
            self.found.append(values)


def elements(page: str, css_class: str) -> list[dict[str, str | None]]:
    parser = Elements(css_class)
    parser.feed(page)
    return parser.found


@dataclass
class Tab:
    """A page of the viewer in Chromium, with every request it made."""

    page: Any
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@contextmanager
def tab(browser: Any, base: str, **context: Any) -> Iterator[Tab]:
    """A fresh Chromium context whose requests outside ``base`` are aborted."""
    opened = browser.new_context(**context)
    seen = Tab(page=None)

    def route(route: Any) -> None:
        url = route.request.url
        if url.startswith(base) or url.startswith("data:"):
            route.continue_()
        else:
            route.abort()

    opened.route("**/*", route)
    opened.on("request", lambda request: seen.requests.append(request.url))
    page = opened.new_page()
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    seen.page = page
    try:
        yield seen
    finally:
        opened.close()


def problem(page: str) -> str:
    """The one line a viewer page without content says (``problem.html.j2``)."""
    found = re.search(r'<p id="problem" class="alert">(.*?)</p>', page, re.S)
    assert found, page
    return html.unescape(found.group(1))
