"""Running ``verifier`` as a subprocess over generated contracts, and a model stand-in
that answers a prompt SUT in text (and judges through ``judge_brain``)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests._cli import verifier_process
from tests.judge import behaviours as b
from tests.judge.judge_brain import brain

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "sut_script.py"
KEY = "sk-ant-api03-sut-test-key-0123456789"
MODEL = "claude-haiku-4-5-20251001"


def verifier(
    cwd: Path, *args: str, base_url: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m verifier ARGS`` with no provider settings from the real environment."""
    settings = {"ANTHROPIC_API_KEY": KEY}
    if base_url:
        settings["ANTHROPIC_BASE_URL"] = base_url
    settings["PYTHONPATH"] = os.pathsep.join(
        [str(HERE.parent.parent), str(HERE), os.environ.get("PYTHONPATH", "")]
    )
    result = verifier_process(
        *args,
        cwd=cwd,
        env={**settings, **(env or {})},
        clear_prefixes=("ANTHROPIC_", "CI"),
        timeout=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def run_report(
    cwd: Path, contract: Path, cases: Path, *extra: str, **options: Any
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``verifier run`` with a JSON report; returns the process and the report."""
    out = cwd / "report.json"
    result = verifier(
        cwd,
        "run",
        str(contract),
        "--cases",
        str(cases),
        "--store",
        str(cwd / "gaps.db"),
        "--format",
        "json",
        "--out",
        str(out),
        *extra,
        **options,
    )
    assert result.returncode in (0, 1), result.stderr
    return result, json.loads(out.read_text(encoding="utf-8"))


def results(report: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    return {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}


def stored_rows(store: Path, run_id: str | None = None) -> list[dict[str, Any]]:
    """Every stored row body (of one run, if given), in order."""
    with sqlite3.connect(store) as db:
        bodies = [json.loads(r[0]) for r in db.execute("SELECT body FROM rows ORDER BY seq")]
    return [r for r in bodies if run_id is None or r["run_id"] == run_id]


def write_cases(path: Path, *cases: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def model(request: dict[str, Any]) -> b.Behaviour:
    """A judge call goes to ``judge_brain``; a prompt SUT call (no forced tool) is answered
    in text: ``ANSWER: <the user message>``, or a refusal when it asks for one."""
    if "tool_choice" in request:
        return brain(request)
    content = request["messages"][0]["content"]
    text = content if isinstance(content, str) else "".join(x["text"] for x in content)
    if "refuse" in text:
        return b.refusal()
    return b.text_only(f"ANSWER: {text}", usage={"input_tokens": 30, "output_tokens": 12})
