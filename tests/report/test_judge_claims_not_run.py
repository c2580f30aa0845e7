"""A run that left claims needing a judge unchecked (``--judges off``, ``--claims``)
says so in the headline of every report, never as a clean pass, and such a claim has
no pass rate. On the starter project ``verifier init`` writes."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path

import pytest

from tests._cli import verifier
from verifier.judge_summary import JudgeClaimsNotRun

JUDGED = ["answers_the_question", "no_worse_than_previous"]
OFF_LINE = "judge claims not run: 2 (--judges off)"


@pytest.fixture
def starter(tmp_path: Path) -> Path:
    assert verifier("init", "evals", cwd=tmp_path).returncode == 0
    return tmp_path


def run(where: Path, fmt: str, *extra: str) -> str:
    """``verifier run`` of the starter contract in format ``fmt``; its report."""
    result = verifier(
        "run", "evals/support-answers.yaml", "--cases", "evals/support-answers.cases.jsonl",
        "--store", "gaps.db", "--format", fmt, *extra,
        cwd=where, env={"COLUMNS": "200", "ANTHROPIC_API_KEY": ""},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_markdown_heading_is_no_clean_pass(starter: Path) -> None:
    lines = run(starter, "markdown", "--judges", "off").splitlines()

    assert lines[0] == f"## ⚠️ `support-answers v1`: all 4 cases passed; {OFF_LINE}"
    assert (
        "> ⚠️ Judge claims not run (skipped with `--judges off`, out of every case's "
        + ("score: `answers_the_question`, `no_worse_than_previous`).")
        in lines
    )
    assert "| answers_the_question | — | 0 | 0 | 0 | 4 |" in lines


def test_the_console_summary_says_which_claims_were_not_run(starter: Path) -> None:
    text = run(starter, "console", "--judges", "off")

    panel = text[: text.index("Claims")]
    assert "all 4 cases passed" in panel
    assert f"{OFF_LINE}: the cases were scored without them" in panel
    rows = [line for line in text.splitlines() if any(c in line for c in JUDGED)]
    assert [row.split("│")[2].strip() for row in rows] == ["—", "—"]


def test_the_json_report_names_them_at_its_top(starter: Path) -> None:
    doc = json.loads(run(starter, "json", "--judges", "off"))

    assert doc["judge_claims_not_run"] == {"count": 2, "judges_off": JUDGED, "not_chosen": []}
    assert [doc["assertion_breakdown"][c]["pass_rate"] for c in JUDGED] == [None, None]


def test_the_junit_suite_names_them_in_its_properties(starter: Path) -> None:
    suite = ET.fromstring(run(starter, "junit", "--judges", "off")).find("testsuite")

    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["judge_claims_not_run"] == "2 (--judges off)"


def test_the_html_banner_and_summary_say_so(starter: Path) -> None:
    run(starter, "json", "--judges", "off")
    made = verifier("report", "--html", "off.html", "--store", "gaps.db", cwd=starter)
    assert made.returncode == 0, made.stderr
    page = (starter / "off.html").read_text(encoding="utf-8")

    def text_of(element_id: str) -> str:
        found = re.search(rf'id="{element_id}"[^>]*>(.*?)</(p|dd)>', page, re.S)
        assert found is not None, element_id
        return unescape(re.sub(r"<[^>]+>", "", found[1]))

    assert text_of("verdict") == (
        f"PASS every case passed; {OFF_LINE}: the cases were scored without them"
    )
    assert text_of("judge-claims-not-run") == OFF_LINE
    rows = re.findall(r'<tr data-claim="(\w+)">.*?<td class="num">([^<]*)</td>', page)
    assert [rate for claim, rate in rows if claim in JUDGED] == ["—", "—"]


def test_the_pull_request_comment_heads_with_them_too(starter: Path) -> None:
    run(starter, "json", "--judges", "off", "--pr-comment", "comment.md")
    comment = (starter / "comment.md").read_text(encoding="utf-8")

    assert f"all 4 cases passed; {OFF_LINE}" in comment and "✅" not in comment


def test_a_choice_of_claims_names_the_judge_claims_it_left_out(starter: Path) -> None:
    doc = json.loads(run(starter, "json", "--claims", "links_a_help_page"))

    assert doc["judge_claims_not_run"] == {"count": 2, "judges_off": [], "not_chosen": JUDGED}


def test_a_run_that_checked_every_claim_names_none(starter: Path) -> None:
    doc = json.loads(run(starter, "json", "--judges", "replay"))
    heading = run(starter, "markdown", "--judges", "replay").splitlines()[0]

    assert "judge_claims_not_run" not in doc
    assert heading == "## ✅ `support-answers v1`: all 4 cases passed"


def test_both_reasons_are_counted_in_one_line() -> None:
    both = JudgeClaimsNotRun(judges_off=("a",), not_chosen=("b", "c"))

    assert both.line() == "judge claims not run: 3 (1 by --judges off, 2 by --claims)"
    assert JudgeClaimsNotRun.of(both.as_dict()) == both
    assert JudgeClaimsNotRun().line() is None
