"""The run page and ``verifier show`` read a case's stored content from SQLite and
PostgreSQL stores alike (what they show is tested in tests/report)."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import verifier
from tests.conftest import EXAMPLES
from tests.gaps._backends import Backend

CASES = EXAMPLES / "account-research.cases.jsonl"


def test_the_page_and_show_read_a_cases_content_from_either_store(
    store_backend: Backend, tmp_path: Path
) -> None:
    target = store_backend.target
    contract = str(EXAMPLES / "account-research.yaml")
    run = verifier(
        "run", contract, "--cases", str(CASES), "--store", target, "--format", "json", cwd=tmp_path
    )
    assert run.returncode == 1, run.stderr
    run_id = json.loads(run.stdout)["run_id"]
    page = tmp_path / "run.html"
    report = verifier("report", "--html", str(page), "--store", target, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    text = page.read_text(encoding="utf-8")
    assert "<mark>pretty solid</mark>" in text and "<strong>FAIL</strong>" in text
    show = verifier("show", run_id, "acct-003", "--format", "json", "--store", target, cwd=tmp_path)
    assert show.returncode == 0, show.stderr
    expected = next(
        c for c in map(json.loads, CASES.read_text().splitlines()) if c["id"] == "acct-003"
    )
    assert json.loads(show.stdout)["content"]["case"] == expected
    if store_backend.name == "postgres":
        password = target.split("@")[0].rsplit(":", 1)[1]
        assert password not in text + show.stdout + show.stderr
