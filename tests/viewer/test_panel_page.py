"""``/view/panel/RUN``: one evaluation's assertions inline, framable by the configured origins
only (``--frame-ancestor``), over real ``verifier evaluate`` runs judged by the local
Messages API stand-in."""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._cli import verifier
from tests.conftest import FIXTURES
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.report._runs import INJECTED_CASE, INJECTED_REASON, plant_run
from tests.viewer._diff_support import elements, problem, tab, viewer
from verifier.gaps.sqlite.store import SqliteStore
from verifier.viewer.frame_ancestors import check_frame_ancestor, frame_ancestors_policy

PRD_EXAMPLE = FIXTURES / "evaluate" / "prd-example.json"
MODEL = "claude-haiku-4-5-20251001"
BUILDER = "http://localhost:*"
"""The builder's origin: another origin than the viewer's (127.0.0.1), on loopback too, as
Chromium keeps public pages from framing loopback ones whatever the policy says."""


def _evaluate(where: Path, server: MessagesServer, request: Path) -> dict[str, Any]:
    result = verifier(
        "evaluate",
        str(request),
        "--provider",
        "anthropic",
        "--model",
        MODEL,
        "--store",
        "gaps.db",
        cwd=where,
        env={
            "ANTHROPIC_API_KEY": "sk-ant-api03-panel-test-key-0123456789",
            "ANTHROPIC_BASE_URL": server.base_url,
        },
        clear_prefixes=("ANTHROPIC_", "VERIFIER_", "CI"),
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A passing evaluation, a failing one (its output guesses), and a hostile run."""
    where = tmp_path_factory.mktemp("panel")
    guessing = json.loads(PRD_EXAMPLE.read_text(encoding="utf-8"))
    guessing["agent_output"] = "I guess Acme renewed about 200 seats."
    (where / "guessing.json").write_text(json.dumps(guessing), encoding="utf-8")
    with MessagesServer(default=brain) as server:
        passing = _evaluate(where, server, PRD_EXAMPLE)
        failing = _evaluate(where, server, where / "guessing.json")
    with SqliteStore(where / "gaps.db") as opened:
        plant_run(opened, "hostile", hostile=True)
    with SqliteStore(where / "gaps.db") as opened:
        runs = [r.run_id for r in opened.runs() if r.contract_id == "evaluate"]
    return {"path": where / "gaps.db", "pass": (runs[0], passing), "fail": (runs[1], failing)}


@pytest.fixture(scope="module")
def url(store: dict[str, Any]) -> Iterator[str]:
    with viewer(store["path"], frame_ancestors=(BUILDER,)) as base:
        yield base


def _get(url: str, run_id: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{url}/view/panel/{run_id}", params=params, timeout=30)


def test_the_panel_shows_each_assertion_as_evaluate_reported_it(
    store: dict[str, Any], url: str
) -> None:
    for key, verdict in (("pass", "PASS"), ("fail", "FAIL")):
        run_id, report = store[key]
        page = _get(url, run_id)
        assert page.status_code == 200
        assert f'id="panel-verdict">{verdict}<' in page.text
        shown = elements(page.text, "assertion")
        assert [(s["data-claim"], s["data-status"]) for s in shown] == [
            (r["id"], r["status"]) for r in report["results"]
        ]
        for result in report["results"]:
            assert f'<div class="reason">{result["reasoning"]}</div>' in page.text
            triple = result["judge"]
            assert f"judge <code>{triple['model_id']}</code>" in page.text
            assert f"prompt <code>{triple['prompt_sha'][:12]}</code>" in page.text
            assert f"sampling <code>{triple['sampling_sha'][:12]}</code>" in page.text
        assert "<script" not in page.text


def test_the_panel_may_be_framed_by_the_configured_origins_only(
    store: dict[str, Any], url: str, tmp_path: Path
) -> None:
    run_id = store["pass"][0]
    panel = _get(url, run_id)
    policy = dict(
        p.strip().split(" ", 1) for p in panel.headers["content-security-policy"].split(";")
    )
    assert policy["frame-ancestors"] == f"'self' {BUILDER}"
    assert policy["script-src"] == "'none'" and policy["default-src"] == "'none'"
    # The viewer's other pages still refuse every frame.
    other = httpx.get(f"{url}/view/trends", timeout=30)
    assert "frame-ancestors 'none'" in other.headers["content-security-policy"]
    with viewer(store["path"]) as alone:
        default = _get(alone, run_id).headers["content-security-policy"]
    assert default.endswith("; frame-ancestors 'self'")


def test_the_case_and_the_run_can_be_named(store: dict[str, Any], url: str) -> None:
    hostile = _get(url, "hostile", case=INJECTED_CASE)
    assert hostile.status_code == 200
    assert INJECTED_REASON not in hostile.text and INJECTED_CASE not in hostile.text
    assert "&lt;script&gt;window.__injected = &#39;reason&#39;&lt;/script&gt;" in hostile.text
    assert re.findall(r"<script\b", hostile.text) == []
    # A run of many cases shows its first case by default; it records no single verdict.
    first = _get(url, "hostile").text
    assert "<code>c0</code>" in first and 'id="panel-verdict"' not in first
    last = _get(url, "last")
    assert last.status_code == 200 and store["fail"][0] in last.text
    unknown = _get(url, "nope")
    assert unknown.status_code == 404 and problem(unknown.text) == "no run nope in the store"
    assert "frame-ancestors 'self' http://localhost:*" in unknown.headers["content-security-policy"]
    assert problem(_get(url, "hostile", case="c9").text) == "run hostile has no case c9"


def test_frame_ancestors_are_origins_and_nothing_more() -> None:
    assert check_frame_ancestor("self") == "'self'"
    assert (
        check_frame_ancestor("https://builder.example.com:8443")
        == "https://builder.example.com:8443"
    )
    assert check_frame_ancestor("https://*.example.com") == "https://*.example.com"
    assert check_frame_ancestor("https:") == "https:"
    for bad in ("https://x.com; script-src *", "'unsafe-inline'", "https://x.com/path", "a b", ""):
        with pytest.raises(ValueError, match="is not an origin"):
            check_frame_ancestor(bad)
    assert frame_ancestors_policy(["self", BUILDER, BUILDER]).endswith(
        f"frame-ancestors 'self' {BUILDER}"
    )


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["serve", "view"])
def test_serve_and_view_refuse_a_bad_frame_ancestor_in_one_line(
    tmp_path: Path, command: str
) -> None:
    result = verifier(command, "--frame-ancestor", "https://x.com; script-src *", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: Invalid value for '--frame-ancestor': 'https://x.com; script-src *' is not an "
        "origin: give 'self', a scheme such as https:, or scheme://host[:port] (a leading *. "
        "allowed), without a path"
    )


@contextmanager
def builder(folder: Path, panel_url: str) -> Iterator[str]:
    """The builder's page, framing the panel, served from ``localhost`` (a real server:
    Chromium treats a page a test fulfils itself as public); its URL."""
    folder.mkdir()
    page = f'<!DOCTYPE html><title>builder</title><iframe id="panel" src="{panel_url}" width="380" height="300"></iframe>'
    (folder / "builder.html").write_text(page, encoding="utf-8")
    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}/builder.html"
    finally:
        server.shutdown()
        server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.mark.e2e
@pytest.mark.parametrize("allowed", [True, False])
def test_a_builder_page_frames_the_panel_in_chromium(
    store: dict[str, Any], chromium: Any, tmp_path: Path, allowed: bool
) -> None:
    run_id = store["pass"][0]
    with viewer(store["path"], frame_ancestors=(BUILDER,) if allowed else ()) as base:
        panel_url = f"{base}/view/panel/{run_id}"
        with builder(tmp_path / "builder", panel_url) as page_url, tab(chromium, "http://") as seen:
            page = seen.page
            page.goto(page_url, wait_until="load")
            frame = page.frame_locator("#panel")
            if allowed:
                frame.locator("li.assertion").first.wait_for(timeout=10_000)
                assert frame.locator("li.assertion").count() == 2
                assert frame.locator("#panel-verdict").inner_text() == "PASS"
                page.screenshot(path=str(tmp_path / "builder.png"))
            else:
                page.wait_for_timeout(500)
                assert frame.locator("li.assertion").count() == 0
                assert page.frames[1].url == "chrome-error://chromewebdata/"
    assert panel_url in seen.requests
