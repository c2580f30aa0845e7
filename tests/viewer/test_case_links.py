"""Every case link of the viewer opens its case, whatever the id holds: each id is one
percent-encoded path segment, and ids no segment can carry go in the query."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import httpx

from tests._cli import verifier
from tests.server._support import running
from verifier.server.settings import ServerSettings
from verifier.server.view import create_view_app

IDS = ["../x", "../../etc/passwd", "a/b", "..", ".", "q?x=1#f", "50%", "sp ace", "c%2Fd"]


def test_each_case_link_of_a_run_page_opens_that_case(tmp_path: Path) -> None:
    contract = tmp_path / "c.yaml"
    contract.write_text(
        "contract: demo\nversion: 1\nclaims:\n  - id: x\n    rubric: present\n    field: output\n",
        encoding="utf-8",
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(json.dumps({"id": i, "output": f"out {i}"}) + "\n" for i in IDS), encoding="utf-8"
    )
    ran = verifier("run", str(contract), "--cases", str(cases), "--run-id", "r1", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    settings = ServerSettings(port=0, store=str(tmp_path / ".verifier" / "gaps.db"))
    with running(settings, app=create_view_app(settings)) as base:
        page = httpx.get(f"{base}/view/runs/r1")
        hrefs = [unescape(h) for h in re.findall(r'class="case-link" href="([^"]+)"', page.text)]
        assert len(hrefs) == len(IDS)
        opened = {}
        for href in hrefs:
            case = httpx.get(httpx.URL(f"{base}/view/runs/r1").join(href))
            assert case.status_code == 200, (href, case.text[:300])
            title = re.search(r"<title>case (.*) of run r1</title>", case.text)
            assert title is not None, (href, case.text[:300])
            opened[unescape(title.group(1))] = href
            # The page's links to the same case in other runs are encoded alike.
            assert "/cases/../" not in case.text
    assert sorted(opened) == sorted(IDS)
    assert opened["../x"] == "/view/runs/r1/cases/..%2Fx"
    assert opened[".."] == "/view/runs/r1/case?id=.."
