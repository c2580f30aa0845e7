"""The run page for people in a hurry: failing results first (or every result in run
order), the count of the results a filter matches, and runs with their judges off
marked in the runs list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from tests.gaps._support import begin, draft
from tests.server._support import running
from tests.viewer._stores import DemoStore, demo_store
from verifier.analyses import browse
from verifier.gaps.sqlite.store import SqliteStore
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app
from verifier.viewer import pages


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return demo_store(tmp_path_factory.mktemp("order"))


@pytest.fixture(scope="module")
def url(demo: DemoStore) -> Iterator[str]:
    settings = ServerSettings(port=0, store=str(demo.path))
    with running(settings, app=create_view_app(settings)) as base:
        yield base


def results(html: str) -> list[tuple[int, str]]:
    found = re.findall(r'<tr class="result" data-seq="(\d+)"[^>]*data-status="(\w+)"', html)
    return [(int(seq), status) for seq, status in found]


def every_result(url: str, path: str) -> list[tuple[int, str]]:
    seen: list[tuple[int, str]] = []
    while True:
        page = httpx.get(url + path).text
        seen += results(page)
        found = re.search(r'id="next" href="([^"]+)"', page)
        if found is None:
            return seen
        path = unescape(found.group(1))


def count(html: str) -> str | None:
    found = re.search(r'id="result-count">([^<]+)<', html)
    return None if found is None else found.group(1)


def test_failing_results_come_first_and_every_result_once(url: str, demo: DemoStore) -> None:
    run = f"/view/runs/{demo.older}"
    first = httpx.get(url + run).text
    shown = every_result(url, run)
    in_order = every_result(url, f"{run}?order=run")
    statuses = [status for _, status in shown]
    assert statuses[:4] == ["fail"] * 4 and "fail" not in statuses[4:]
    assert sorted(shown) == in_order and len(in_order) == 189
    assert [seq for seq, _ in in_order] == sorted(seq for seq, _ in in_order)
    # The control to see every result in the run's order.
    show_all = re.search(r'id="show-all" href="([^"]+)"', first)
    assert show_all is not None and show_all.group(1) == f"{run}?order=run"
    assert 'id="order-note"' not in httpx.get(f"{url}{run}?order=run").text
    assert httpx.get(f"{url}{run}?order=sideways").status_code == 400


def test_the_results_a_filter_matches_are_counted(url: str, demo: DemoStore) -> None:
    run = f"{url}/view/runs/{demo.older}"
    assert count(httpx.get(run).text) == "189 results"
    assert count(httpx.get(f"{run}?claim=no_slang").text) == "63 results match"
    assert count(httpx.get(f"{run}?status=fail").text) == "4 results match"
    assert count(httpx.get(f"{run}?q=filler-07").text) == "3 results match"
    assert count(httpx.get(f"{run}?claim=no_slang&status=fail").text) == "1 result matches"


def test_a_run_with_its_judges_off_is_marked_in_the_runs_list(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "gaps.db") as store:
        for run_id, options in (("off", {"judges": "off"}), ("on", {})):
            begin(store, run_id, started_at=f"2026-11-25T09:0{len(run_id)}:00Z", options=options)
            store.append([draft(1, run_id)])
            store.finish_run(
                run_id, status="finished", finished_at="2026-11-25T10:00:00Z", summary={}
            )
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    with running(settings, app=create_view_app(settings)) as base:
        page = httpx.get(f"{base}/view/runs").text
    marked = re.findall(r'<tr class="run" data-run="(\w+)">.*?</tr>', page, re.S)
    rows = dict(zip(marked, re.findall(r'<tr class="run".*?</tr>', page, re.S), strict=True))
    assert 'class="judges-off"' in rows["off"] and "judges-off" not in rows["on"]


def test_a_count_past_the_bound_is_said_as_more_than_it(
    url: str, demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browse, "COUNT_UP_TO", 100)
    monkeypatch.setattr(pages, "COUNT_UP_TO", 100)
    page = httpx.get(f"{url}/view/runs/{demo.older}?status=pass").text
    assert count(page) == "more than 100 results match"
