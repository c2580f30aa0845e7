"""The viewer's pages over HTTP: run names as on the command line, one-line problems,
the runs list's filters and pages, and the same pages under `verifier serve`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import escape
from pathlib import Path

import httpx
import pytest

from tests.report._runs import INJECTED_REASON, plant_run
from tests.server._support import running
from tests.viewer._stores import DemoStore, demo_store
from verifier.gaps.store import open_store, redacted_target
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app
from verifier.viewer.app import CONTENT_SECURITY_POLICY


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    return demo_store(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def url(demo: DemoStore) -> Iterator[str]:
    settings = ServerSettings(port=0, store=str(demo.path))
    with running(settings, app=create_view_app(settings)) as base:
        yield base


def runs_shown(html: str) -> list[str]:
    return re.findall(r'<tr class="run" data-run="([^"]+)"', html)


def test_last_and_last_n_name_runs_as_the_command_line_does(url: str, demo: DemoStore) -> None:
    newest = httpx.get(f"{url}/view/runs/last?status=fail", follow_redirects=False)
    before = httpx.get(f"{url}/view/runs/last~1", follow_redirects=True)
    too_far = httpx.get(f"{url}/view/runs/last~7")
    assert newest.status_code == 303
    assert newest.headers["location"] == f"/view/runs/{demo.newer}?status=fail"
    assert (
        before.status_code == 200 and f'Run <span class="mono">{demo.older}</span>' in before.text
    )
    assert too_far.status_code == 404
    assert "last~7: only 3 runs stored in" in too_far.text
    assert too_far.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_what_the_store_does_not_hold_is_a_one_line_page(url: str, demo: DemoStore) -> None:
    run = httpx.get(f"{url}/view/runs/no-such-run")
    case = httpx.get(f"{url}/view/runs/{demo.older}/cases/no-such-case")
    status = httpx.get(f"{url}/view/runs/{demo.older}?status=maybe")
    after = httpx.get(f"{url}/view/runs/{demo.older}?after=-1")
    assert run.status_code == 404 and "no run no-such-run in" in run.text
    assert case.status_code == 404
    assert f"case &#39;no-such-case&#39; is not in run {demo.older}" in case.text
    assert status.status_code == 400 and "status &#39;maybe&#39;: one of pass, fail" in status.text
    assert after.status_code == 422


def test_the_runs_list_filters_by_contract_and_status_and_pages(url: str, demo: DemoStore) -> None:
    every = httpx.get(f"{url}/view/runs").text
    demo_only = httpx.get(f"{url}/view/runs?contract=demo").text
    evidence = httpx.get(f"{url}/view/runs?contract=evidence-demo&status=finished").text
    running_ = httpx.get(f"{url}/view/runs?status=running").text
    later = httpx.get(f"{url}/view/runs?offset=2").text
    assert runs_shown(every) == [demo.newer, demo.older, demo.planted]
    assert runs_shown(demo_only) == [demo.planted]
    assert runs_shown(evidence) == [demo.newer, demo.older]
    assert runs_shown(running_) == [] and 'id="no-runs"' in running_
    assert runs_shown(later) == [demo.planted]
    assert 'id="previous" href="/view/runs"' in later
    # The run list shows what the summary holds: cases, pass rate, status.
    row = re.search(rf'data-run="{demo.older}">(.*?)</tr>', every, re.S)
    assert row is not None
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
    assert cells[:2] == ["63", f"{100 * 61 / 63:.1f}%"]


def test_the_api_server_serves_the_same_pages(demo: DemoStore) -> None:
    with running(ServerSettings(port=0, store=str(demo.path))) as base:
        run = httpx.get(f"{base}/view/runs/{demo.older}/cases/rude")
        api = httpx.get(f"{base}/openapi.json")
    assert run.status_code == 200 and "<mark>Sorry</mark>" in run.text
    assert run.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert api.status_code == 200  # the API is still there beside them


def test_a_store_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "not-a-store.db").write_text("plain text, not SQLite\n" * 100)
    settings = ServerSettings(port=0, store=str(tmp_path / "not-a-store.db"))
    with running(settings, app=create_view_app(settings)) as base:
        page = httpx.get(f"{base}/view/runs")
    assert page.status_code == 503
    assert len(page.json()["detail"].splitlines()) == 1


def test_a_postgresql_store_is_viewed_alike(postgres_url: str) -> None:
    with open_store(postgres_url) as store:
        plant_run(store, "pg-run", hostile=True)
    settings = ServerSettings(port=0, store=postgres_url)
    with running(settings, app=create_view_app(settings)) as base:
        runs = httpx.get(f"{base}/view/runs")
        run = httpx.get(f"{base}/view/runs/last?status=fail", follow_redirects=True)
        case = httpx.get(f"{base}/view/runs/pg-run/cases/c3")
    assert runs_shown(runs.text) == ["pg-run"]
    # The store is named as messages name it: no password, no query string.
    assert f'<span class="store mono">{escape(redacted_target(postgres_url))}</span>' in runs.text
    assert re.findall(r'data-status="([a-z]+)"', run.text) == ["fail", "fail", "fail"]
    assert "&lt;script&gt;" in run.text and INJECTED_REASON not in run.text
    assert case.status_code == 200 and "cites_sources fail on c3" in case.text
