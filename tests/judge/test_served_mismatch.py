"""A judge served by another model than the one asked for: the row, every run report
and the audit all say so."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from tests._cli import verifier
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.judge.test_judge_run import CASES, CONTRACT, KEY, run_json

ASKED = "claude-haiku-4-5-20251001"
SERVED = "claude-haiku-4-5-20990101"


def _swapped(request: dict) -> b.Behaviour:
    return replace(brain(request), model=SERVED)


def _evidence(store: Path) -> list[dict]:
    with sqlite3.connect(store) as db:
        bodies = [json.loads(body) for (body,) in db.execute("SELECT body FROM rows")]
    return [body["evidence"] for body in bodies if body["kind"] in ("judge", "comparative")]


def test_a_swapped_model_is_flagged_in_row_report_and_audit(tmp_path: Path) -> None:
    with MessagesServer(default=_swapped) as server:
        run_json(tmp_path, server)
    store = tmp_path / "gaps.db"
    judged = [e for e in _evidence(store) if "judge" in e]
    assert judged
    for evidence in judged:
        assert evidence["judge"]["model_id"] == SERVED
        assert evidence["served_mismatch"] == {"served": SERVED, "asked_for": ASKED}

    html = tmp_path / "r.html"
    result = verifier("report", "--store", str(store), "--html", str(html), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"served {SERVED}, asked for {ASKED}" in html.read_text(encoding="utf-8")

    audit = verifier("audit", "--store", str(store), cwd=tmp_path)
    assert audit.returncode == 0, audit.stderr
    line = next(x for x in audit.stdout.splitlines() if "SERVED" in x)
    assert f"served {SERVED}, asked for {ASKED}" in line and "judge " in line
    markdown = verifier("audit", "--store", str(store), "--format", "markdown", cwd=tmp_path)
    assert f"served {SERVED}, asked for {ASKED}" in markdown.stdout
    as_json = json.loads(
        verifier("audit", "--store", str(store), "--format", "json", cwd=tmp_path).stdout
    )
    assert {(m["served"], m["requested"]) for m in as_json["served_mismatches"]} == {
        (SERVED, ASKED)
    }


def test_the_model_asked_for_is_no_mismatch(tmp_path: Path) -> None:
    with MessagesServer(default=brain) as server:
        run_json(tmp_path, server)
    store = tmp_path / "gaps.db"
    assert all("served_mismatch" not in e for e in _evidence(store))
    audit = verifier("audit", "--store", str(store), "--format", "json", cwd=tmp_path)
    assert json.loads(audit.stdout)["served_mismatches"] == []


def test_the_run_reports_name_the_model_served_and_the_one_asked_for(tmp_path: Path) -> None:
    said = f"served {SERVED}, asked for {ASKED}"
    with MessagesServer(default=_swapped) as server:
        _, report, _ = run_json(tmp_path, server)
        noise = report["judge_noise"]
        assert noise and all(
            figures["served_mismatch"] == {"served": SERVED, "asked_for": ASKED}
            and figures["served_other"] == figures["verdicts"] > 0
            for figures in noise.values()
        )
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        for fmt in ("console", "markdown"):
            shown = verifier(
                "run", str(CONTRACT), "--cases", str(CASES), "--format", fmt,
                "--store", str(tmp_path / f"{fmt}.db"), "--judges", "live",
                cwd=tmp_path, env=env, clear_prefixes=("ANTHROPIC_", "CI"),
            )  # fmt: skip
            assert shown.returncode in (0, 1), shown.stderr
            claims = [line for line in shown.stdout.splitlines() if said in line]
            assert len(claims) == len(noise), shown.stdout
    asked = tmp_path / "asked"
    asked.mkdir()
    with MessagesServer(default=brain) as server:
        _, report, _ = run_json(asked, server)
    assert all(f["served_mismatch"] is None for f in report["judge_noise"].values())
