"""Comparative claims: similarity, consistency, and pairwise judged in both orders."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES
from tests.judge.behaviours import Behaviour, tool_use
from tests.judge.messages_server import MessagesServer
from verifier.contract.models import CompareClaim
from verifier.engine.comparative import combine_orders, similarity

COMPARE = FIXTURES / "compare"


@pytest.mark.parametrize(
    ("a", "b", "method", "expected"),
    [
        ("abc", "abd", "ratio", 2 / 3),  # rapidfuzz ratio: 2 * 2 matches / 6 chars
        ("hello world", "world hello", "token_set_ratio", 1.0),
        (["fraud", "phishing"], ["phishing", "spam"], "jaccard", 1 / 3),
        ({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 5, "d": 3}, "fields", 1 / 4),
        ("", "", "jaccard", 1.0),
    ],
)
def test_similarity_methods_match_their_definitions(
    a: Any, b: Any, method: str, expected: float
) -> None:
    assert similarity(a, b, method) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("1", "2", ("a", False)),  # A wins shown first, A wins shown second
        ("2", "1", ("b", False)),
        ("1", "1", ("tie", True)),  # always the first position: position bias
        ("2", "2", ("tie", True)),  # always the second position
        ("tie", "tie", ("tie", False)),
        ("1", "tie", ("tie", False)),
        ("tie", "1", ("tie", False)),
    ],
)
def test_orders_are_combined_and_position_flips_become_inconsistent_ties(
    first: str, second: str, expected: tuple[str, bool]
) -> None:
    assert combine_orders(first, second) == expected


def test_pairwise_claim_needs_a_judge_and_an_instruction() -> None:
    with pytest.raises(ValueError, match="judge"):
        CompareClaim(id="x", compare="pairwise", instruction="Which?")
    with pytest.raises(ValueError, match="instruction"):
        CompareClaim(id="x", compare="pairwise", judge="j")


def prefers_cited(request: dict[str, Any]) -> Behaviour:
    """Prefers the response that cites a source; a tie when both or neither do."""
    if request["tool_choice"]["name"] != "record_preference":
        raise AssertionError("only pairwise calls are expected")
    text = request["messages"][0]["content"]
    text = text if isinstance(text, str) else "".join(b.get("text", "") for b in text)
    blocks = dict(re.findall(r"<(response-[12])-[0-9a-f]+>(.*?)</\1-[0-9a-f]+>", text, re.S))
    one, two = ("[source" in blocks.get(f"response-{n}", "") for n in (1, 2))
    winner = "tie" if one == two else ("1" if one else "2")
    return tool_use({"winner": winner, "reasoning": "cited sources decide"})


def always_first(request: dict[str, Any]) -> Behaviour:
    return tool_use({"winner": "1", "reasoning": "the first one"})


def run(tmp_path: Path, server: MessagesServer) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CI"))}
    env.update(
        ANTHROPIC_API_KEY="sk-ant-test-compare-0123456789", ANTHROPIC_BASE_URL=server.base_url
    )
    out = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "verifier",
            "run",
            str(COMPARE / "answers.yaml"),
            "--cases",
            str(COMPARE / "candidate.jsonl"),
            "--baseline",
            str(COMPARE / "baseline.jsonl"),
            "--store",
            str(tmp_path / "gaps.db"),
            "--format",
            "json",
            "--out",
            str(out),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(out.read_text(encoding="utf-8"))


def rows(report: dict) -> dict[str, dict[str, dict]]:
    return {c["id"]: {r["id"]: r for r in c["results"]} for c in report["cases"]}


@pytest.mark.e2e
def test_comparative_claims_end_to_end_with_a_baseline(tmp_path: Path) -> None:
    with MessagesServer(default=prefers_cited) as server:
        _, report = run(tmp_path, server)
        calls = server.model_calls()
    r = rows(report)
    # Pairwise: asked twice per case, in both orders, with neutral labels.
    assert len(calls) == 6
    for call in calls:
        body = json.dumps(call.body)
        assert "baseline" not in body.lower() and "candidate" not in body.lower()
    assert r["q1"]["no_worse_than_baseline"]["status"] == "pass"  # A cites, B does not
    assert r["q1"]["no_worse_than_baseline"]["evidence"]["preferred"] == "a"
    assert r["q2"]["no_worse_than_baseline"]["status"] == "fail"  # only the baseline cites
    assert r["q3"]["no_worse_than_baseline"]["score"] == 0.5  # both cite: a tie
    triple = r["q1"]["no_worse_than_baseline"]["evidence"]["judge"]
    assert triple["model_id"] == "claude-haiku-4-5-20251001" and len(triple["prompt_sha"]) == 64
    assert report["usage"]["pairwise_comparisons"] == 3 and report["usage"]["position_flips"] == 0
    # Similarity against the joined baseline, consistency across runs.
    assert r["q1"]["close_to_baseline"]["status"] == "pass"
    assert r["q2"]["close_to_baseline"]["status"] == "fail"
    assert r["q1"]["runs_agree"]["status"] == "pass" and r["q2"]["runs_agree"]["status"] == "fail"
    assert r["q3"]["runs_agree"]["evidence"]["min"] == 1.0


@pytest.mark.e2e
def test_position_bias_is_counted_as_flips(tmp_path: Path) -> None:
    with MessagesServer(default=always_first) as server:
        _, report = run(tmp_path, server)
    r = rows(report)
    for case in ("q1", "q2", "q3"):
        row = r[case]["no_worse_than_baseline"]
        assert row["evidence"]["inconsistent"] is True and row["score"] == 0.5
    assert report["usage"]["position_flips"] == 3
    # Every comparison a tie by position, so every one passed: the run says what that is.
    assert report["warnings"] == [
        "claim no_worse_than_baseline: the judge chose by position, not content, in 3 of 3 "
        "comparisons; each counts as a tie, which passes, so these passes say little about "
        "the outputs (check the judge's prompt and model)"
    ]


@pytest.mark.e2e
def test_a_judge_that_reads_the_content_gets_no_position_warning(tmp_path: Path) -> None:
    with MessagesServer(default=prefers_cited) as server:
        _, report = run(tmp_path, server)
    assert not any("chose by position" in w for w in report.get("warnings", []))
