"""Critique and compliance claims end to end: `verifier run` through the provider
against the local Messages API stand-in (whose judge finds one weakness, and one
section poorly followed, per "guess" in the output)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests._cli import verifier
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer

KEY = "sk-ant-api03-finding-run-test-key-0123456789"

CONTRACT = """\
contract: findings
version: 1
judges:
  strict: {provider: anthropic, model: claude-haiku-4-5-20251001, group: case}
  thrice:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    samples: 3
claims:
  - id: flaws
    judge: strict
    instruction: Find what is wrong with the brief
    critique: {}
  - id: few_flaws
    judge: strict
    instruction: Find unsupported figures
    critique: {points: [100, 70, 40, 0], pass_at: 70}
  - id: follows
    judge: strict
    instruction: How well does the brief follow the house style
    compliance: {pass_at: 0.6}
    reference: {instructions: style}
  - id: follows_thrice
    judge: thrice
    instruction: How well does the brief follow the house style
    compliance: {}
    reference: {instructions: style}
"""

STYLE = "Write briefs of facts only. Never guess a figure."
CASES = [
    {"id": "clean", "input": "Brief on Acme.", "output": "Acme renewed 240 seats."},
    {"id": "one", "input": "Brief on Bright.", "output": "My guess is 500 seats."},
    {"id": "three", "input": "Brief on Q.", "output": "guess, guess and a guess."},
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "findings.yaml").write_text(CONTRACT, encoding="utf-8")
    lines = "".join(json.dumps({**c, "style": STYLE}) + "\n" for c in CASES)
    (tmp_path / "findings.cases.jsonl").write_text(lines, encoding="utf-8")
    return tmp_path


def run(project: Path, server: MessagesServer, *extra: str) -> dict[str, dict[str, Any]]:
    out = project / "report.json"
    result = verifier(
        "run",
        "findings.yaml",
        "--format",
        "json",
        "--out",
        str(out),
        "--store",
        str(project / "gaps.db"),
        *extra,
        cwd=project,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        clear_prefixes=("ANTHROPIC_", "CI"),
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    return {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}


def test_critique_and_compliance_claims_run_through_the_real_sdk(project: Path) -> None:
    with MessagesServer(default=brain) as server:
        rows = run(project, server)
        calls = [call.body for call in server.model_calls()]
    tools = [call["tool_choice"]["name"] for call in calls]
    for call in calls:
        user = call["messages"][0]["content"]
        user = user if isinstance(user, str) else "".join(b["text"] for b in user)
        # The compliance judge sees the instructions, fenced as data; the critique none.
        shown = "The instructions the system was given:\n<instructions-" in user
        assert shown == (call["tool_choice"]["name"] == "record_compliance")
        assert (STYLE in user) == shown
    scored = {
        case: {claim: (r["status"], r["score"]) for claim, r in results.items()}
        for case, results in rows.items()
    }
    assert scored["clean"] == {
        "flaws": ("pass", 1.0),
        "few_flaws": ("pass", 1.0),
        "follows": ("pass", 1.0),
        "follows_thrice": ("pass", 1.0),
    }
    assert scored["one"] == {
        "flaws": ("fail", 0.75),
        "few_flaws": ("pass", 0.7),
        "follows": ("pass", 0.75),
        "follows_thrice": ("pass", 0.75),
    }
    assert scored["three"] == {
        "flaws": ("fail", 0.25),
        "few_flaws": ("fail", 0.0),
        "follows": ("fail", 0.25),
        "follows_thrice": ("fail", 0.25),
    }
    # group: case: both critique claims share a call; the compliance claim has its own;
    # three samples of the other judge each.
    assert sorted(tools) == sorted(
        ["record_critique", "record_compliance"] * 3 + ["record_compliance"] * 9
    )
    flaws = rows["one"]["flaws"]
    assert flaws["reasoning"] == "1 weakness: guess 1: a figure is guessed"
    evidence = flaws["evidence"]
    assert evidence["verdict_kind"] == "critique"
    assert evidence["verdict"]["verdict"]["weaknesses"] == [
        {"weakness": "guess 1: a figure is guessed", "suggestion": "say it is unknown"}
    ]
    assert evidence["verdict"]["critique"]["awarded"] == 75
    assert len(evidence["judge"]["prompt_sha"]) == 64
    follows = rows["three"]["follows"]
    assert follows["evidence"]["verdict_kind"] == "compliance"
    assert len(follows["evidence"]["verdict"]["verdict"]["poorly_followed"]) == 3
    thrice = rows["one"]["follows_thrice"]["evidence"]
    assert thrice["agreement_rate"] == 1.0 and len(thrice["samples"]) == 3


def test_each_kind_has_its_own_prompt_sha_and_a_rerun_replays_from_the_cache(
    project: Path,
) -> None:
    with MessagesServer(default=brain) as server:
        first = run(project, server)
        calls = len(server.model_calls())
        again = run(project, server)
        assert len(server.model_calls()) == calls
    shas = {claim: r["evidence"]["judge"]["prompt_sha"] for claim, r in first["one"].items()}
    assert shas["flaws"] == shas["few_flaws"] != shas["follows"]
    assert {c: (r["status"], r["score"]) for c, r in again["three"].items()} == {
        c: (r["status"], r["score"]) for c, r in first["three"].items()
    }
    assert again["one"]["flaws"]["evidence"]["cache"]["hit"] is True


def test_a_batch_run_parses_the_new_kinds_from_its_results(project: Path) -> None:
    with MessagesServer(default=brain, batch_polls=1) as server:
        rows = run(project, server, "--batch", "--batch-poll", "0.05")
        assert server.model_calls() == []
    assert (rows["one"]["flaws"]["status"], rows["one"]["flaws"]["score"]) == ("fail", 0.75)
    assert rows["three"]["follows"]["status"] == "fail"
    db = sqlite3.connect(project / "gaps.db")
    ((status,),) = db.execute("SELECT DISTINCT status FROM judge_batches").fetchall()
    db.close()
    assert status == "ended"


def command(project: Path, server: MessagesServer, *args: str) -> Any:
    result = verifier(
        *args,
        cwd=project,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        clear_prefixes=("ANTHROPIC_", "CI"),
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_audit_resample_calibrate_and_reports_read_the_new_rows(project: Path) -> None:
    labels = [
        {"case_id": "clean", "claim_id": "flaws", "label": "pass", "rater": "ann"},
        {"case_id": "one", "claim_id": "flaws", "label": "pass", "rater": "ann"},
        {"case_id": "three", "claim_id": "flaws", "label": "fail", "rater": "ann"},
        {"case_id": "one", "claim_id": "follows", "label": 0.8, "rater": "ann"},
        {"case_id": "three", "claim_id": "follows", "label": "fail", "rater": "ann"},
    ]
    (project / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    store = str(project / "gaps.db")
    with MessagesServer(default=brain) as server:
        run(project, server)
        audit = command(project, server, "audit", "--store", store, "--format", "json")
        assert audit.returncode == 0, audit.stderr
        resample = command(
            project,
            server,
            "audit",
            "--store",
            store,
            "--run",
            "last",
            "--resample",
            "12",
            "--seed",
            "3",
            "--format",
            "json",
        )
        assert resample.returncode == 0, resample.stderr
        retests = json.loads(resample.stdout)
        assert sum(t["asked"] for t in retests["triples"]) == 12
        assert all(t["agreement"] == 1.0 for t in retests["triples"])
        calibrate = command(
            project,
            server,
            "calibrate",
            "--labels",
            "labels.jsonl",
            "--store",
            store,
            "--format",
            "json",
        )
        assert calibrate.returncode == 0, calibrate.stderr
        html = command(project, server, "report", "--html", "r.html", "--store", store)
        assert html.returncode == 0, html.stderr
        shown = command(project, server, "show", "last", "one", "--store", store)
        assert shown.returncode == 0 and "1 weakness" in shown.stdout
    assert "guess 1: a figure is guessed" in (project / "r.html").read_text(encoding="utf-8")
    claims = {c["claim_id"]: c for c in json.loads(calibrate.stdout)["claims"]}
    # Pass/fail labels are compared with the verdicts; a score label is counted apart.
    assert claims["flaws"]["n"] == 3 and claims["flaws"]["agreement"] == pytest.approx(2 / 3)
    assert (claims["follows"]["n"], claims["follows"]["scored"]) == (1, 1)


def test_samples_of_a_compliance_claim_take_the_median_sample(project: Path) -> None:
    said = iter([0.1, 0.9, 0.8])

    def wavering(request: dict[str, Any]) -> Any:
        answer = brain(request)  # only follows_thrice is run: three compliance calls
        for result in answer.tool_input["results"]:
            result["overall_compliance"] = next(said)
        return answer

    (project / "findings.cases.jsonl").write_text(
        json.dumps({**CASES[0], "style": STYLE}) + "\n", encoding="utf-8"
    )
    with MessagesServer(default=wavering) as server:
        rows = run(project, server, "--claims", "follows_thrice", "--concurrency", "1")
    row = rows["clean"]["follows_thrice"]
    # The median of 0.1, 0.9 and 0.8 (the mean would be 0.6), and its reason.
    assert (row["status"], row["score"]) == ("pass", 0.8)
    assert row["reasoning"] == "compliance 0.8; no section poorly followed (2 of 3 verdicts agree)"
    assert sorted(s["score"] for s in row["evidence"]["samples"]) == [0.1, 0.8, 0.9]
