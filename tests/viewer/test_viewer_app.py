"""The viewer's frame: pages under /view of `verifier serve`, their security headers,
their files served by the server itself, and no route but GET."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi.routing import APIRoute

from tests.server._support import TOKEN, running
from verifier.server.app import create_app
from verifier.server.settings import ServerSettings
from verifier.viewer.app import CONTENT_SECURITY_POLICY, VIEW_PREFIX, viewer_router


def test_the_api_serves_the_viewer_files_with_the_pages_policy(tmp_path: Path) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"))
    with running(settings) as url:
        script = httpx.get(f"{url}/view/static/viewer.js")
        style = httpx.get(f"{url}/view/static/report.css")
        missing = httpx.get(f"{url}/view/static/..%2Fapp.py")
        home = httpx.get(f"{url}/view/", follow_redirects=False)
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "use strict" in script.text
    assert script.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert script.headers["x-content-type-options"] == "nosniff"
    # The static reports' own stylesheet: one look for both.
    assert style.status_code == 200 and "banner-fail" in style.text
    assert missing.status_code == 404
    assert home.status_code == 303 and home.headers["location"] == "/view/runs"


def test_the_policy_fetches_from_nowhere_else_and_runs_no_inline_script() -> None:
    parts = dict(part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";"))
    assert parts["default-src"] == "'none'"
    assert parts["script-src"] == "'self'"
    assert "unsafe-inline" not in parts["script-src"]
    assert parts["frame-ancestors"] == "'none'"


def test_the_viewer_behind_the_api_token_needs_it(tmp_path: Path) -> None:
    settings = ServerSettings(port=0, store=str(tmp_path / "gaps.db"), token=TOKEN)
    with running(settings) as url:
        refused = httpx.get(f"{url}/view/static/viewer.css")
        served = httpx.get(
            f"{url}/view/static/viewer.css", headers={"authorization": f"Bearer {TOKEN}"}
        )
    assert refused.status_code == 401
    assert served.status_code == 200


def test_the_viewer_only_reads(tmp_path: Path) -> None:
    routes = [r for r in viewer_router(str(tmp_path / "gaps.db")).routes if isinstance(r, APIRoute)]
    assert routes
    assert {m for r in routes for m in r.methods} <= {"GET", "HEAD"}
    assert all(r.path.startswith(VIEW_PREFIX) for r in routes)
    app = create_app(ServerSettings(store=str(tmp_path / "gaps.db")))
    viewer_paths = [r for r in app.routes if isinstance(r, APIRoute) and r.path.startswith("/view")]
    assert {m for r in viewer_paths for m in r.methods} <= {"GET", "HEAD"}
    # Not part of the API's OpenAPI document.
    assert not any(p.startswith("/view") for p in app.openapi()["paths"])
