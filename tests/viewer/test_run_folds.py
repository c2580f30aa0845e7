"""The run page's folds of failing results: a citation's shows the text the quote was
looked for in (its nearest match marked), a judge's the case fields the judge was
shown; a run that recorded no case text shows none of it and says why in one line.
Real runs through ``verifier run``, the judge the local Messages API stand-in."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from tests._cli import verifier
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.report._evidence_runs import marks_of
from tests.viewer._diff_support import viewer, write_cases

CONTRACT = """\
contract: folds
version: 1
llm_fields: [answer]
judges:
  strict:
    provider: anthropic
    model: claude-haiku-4-5-20251001
    sampling: {max_tokens: 512}
claims:
  - id: quotes_grounded
    rubric: citation
    spans: quotes.*
    within: source
    min_ratio: 95
  - id: answers_well
    judge: strict
    field: answer
    instruction: The answer states the refund policy
    reference:
      expected: expected_answer
"""
SOURCE = "Refunds are paid within 14 days of the return reaching our warehouse."
CASES = [
    {
        "id": "guessing",
        "input": "When is my refund paid?",
        "source": SOURCE,
        "answer": "I guess refunds take a month.",
        "expected_answer": "Within 14 days of the return arriving.",
        "quotes": ["Refunds are paid within 30 days"],
    },
    {
        "id": "good",
        "input": "When is my refund paid?",
        "source": SOURCE,
        "answer": "Within 14 days of your return reaching us.",
        "expected_answer": "Within 14 days of the return arriving.",
        "quotes": ["paid within 14 days"],
    },
]


def _run(where: Path, extra: str = "") -> str:
    (where / "folds.yaml").write_text(CONTRACT + extra, encoding="utf-8")
    cases = write_cases(where / "cases.jsonl", CASES)
    with MessagesServer(default=brain) as server:
        result = verifier(
            "run", "folds.yaml", "--cases", str(cases), "--store", "gaps.db",
            "--judges", "live", "--format", "json",
            cwd=where,
            env={"ANTHROPIC_API_KEY": "sk-ant-api03-folds-key", "ANTHROPIC_BASE_URL": server.base_url},
            clear_prefixes=("ANTHROPIC_", "VERIFIER_", "CI"),
            timeout=120,
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    run_id: str = json.loads(result.stdout)["run_id"]
    return run_id


def _fold(page: str, claim: str) -> str:
    """The ``tr.result`` of the failing case's result of ``claim``."""
    row = re.search(
        rf'<tr class="result"[^>]*data-claim="{claim}" data-status="fail">.*?</tr>', page, re.S
    )
    assert row, f"no failing result of {claim}"
    return row.group(0)


def _fields(fold: str) -> list[str]:
    return re.findall(r'<div class="field"><div class="field-name"><code>([^<]+)</code>', fold)


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    where = tmp_path_factory.mktemp("folds")
    run_id = _run(where)
    with viewer(where / "gaps.db") as base:
        yield httpx.get(f"{base}/view/runs/{run_id}", timeout=30).text


def test_a_citation_failure_shows_the_text_it_was_looked_in_with_the_nearest_match(
    full: str,
) -> None:
    fold = _fold(full, "quotes_grounded")
    assert _fields(fold) == ["input", "quotes.0", "source"]
    assert "nearest match marked in source" in fold
    (near,) = marks_of(full)[("guessing", "quotes_grounded")][1:]
    assert near in SOURCE and "Refunds are paid within" in near


def test_a_judge_failure_shows_the_case_fields_the_judge_was_shown(full: str) -> None:
    fold = _fold(full, "answers_well")
    assert _fields(fold) == ["input", "answer", "expected_answer"]
    (saw,) = re.findall(r'<div class="note judge-saw">([^<]*)</div>', fold)
    assert unescape(saw) == "the judge was shown input, answer, expected_answer:"
    assert str(CASES[0]["expected_answer"]) in unescape(fold)


def test_without_recorded_content_the_folds_say_why_in_one_line(tmp_path: Path) -> None:
    run_id = _run(tmp_path, "record:\n  content: none\n")
    with viewer(tmp_path / "gaps.db") as base:
        page = httpx.get(f"{base}/view/runs/{run_id}", timeout=30).text
    for claim in ("quotes_grounded", "answers_well"):
        fold = _fold(page, claim)
        assert _fields(fold) == []
        assert (
            '<div class="note content-note">content: the run recorded no case text '
            "(record: content: none)</div>" in fold
        )
    assert SOURCE not in page and str(CASES[0]["expected_answer"]) not in page
    assert "<mark>" not in page


def test_the_case_page_marks_the_nearest_match_and_says_what_the_judge_was_shown(
    tmp_path: Path,
) -> None:
    run_id = _run(tmp_path)
    with viewer(tmp_path / "gaps.db") as base:
        page = httpx.get(f"{base}/view/runs/{run_id}/cases/guessing", timeout=30).text
    source = page.split('data-path="source"', 1)[1].split("</pre>", 1)[0]
    (near,) = re.findall(r"<mark>(.*?)</mark>", source, re.S)
    assert near in SOURCE and near.startswith("Refunds are paid within")
    assert re.findall(r'<div class="note judge-saw">([^<]*)</div>', page) == [
        "the judge was shown input, answer, expected_answer"
    ]
