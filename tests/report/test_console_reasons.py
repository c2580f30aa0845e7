"""The console report says why each claim did not pass (its top reasons, counted) before
the failing cases, and shows an excerpt of each failing case's output; the JSON report
carries each case as the store keeps it. Both from a real run through the runner."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from tests.report._evidence_runs import CASES, SECRET, run_demo
from verifier.gaps.content import RecordPolicy
from verifier.report.console import ConsoleReportWriter
from verifier.report.json_report import JsonReportWriter


def reply(n: int, output: str) -> dict[str, object]:
    return {"id": f"reply-{n}", "input": "Hi?", "output": output, "quotes": ["Hi"]}


REPLIES = [
    reply(1, "Sorry, no."),
    reply(2, "   Sorry, no."),
    reply(3, "We are gonna look."),
    reply(4, "Sure, gonna do it."),
    reply(5, "lol"),
]


def console_report(tmp_path: Path, cases: list[dict[str, object]], **policy: RecordPolicy) -> str:
    out = io.StringIO()
    writer = ConsoleReportWriter(out, console=Console(file=out, width=200))
    run_demo(tmp_path, cases=cases, sinks=[writer], **policy)
    return out.getvalue()


def table_rows(text: str) -> list[list[str]]:
    """The cells of every row of the rich tables in ``text``."""
    return [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in text.splitlines()
        if "│" in line
    ]


def test_each_failing_claim_lists_its_top_reasons_with_counts_before_the_examples(
    tmp_path: Path,
) -> None:
    text = console_report(tmp_path, REPLIES)
    start, end = text.index("Why claims did not pass (top reasons)"), text.index("Failing cases")
    assert start < end
    # Apologies at different places are one reason, its numbers shown as N; a reason
    # given once is shown as it was.
    assert table_rows(text[start:end]) == [
        ["no_apology", "2", "forbidden pattern found in output at N-N"],
        [
            "no_slang",
            "2",
            "output contains banned value 'gonna' at N-N (1 of 2 banned values found)",
        ],
        ["", "1", "output contains banned value 'lol' at 0-3 (1 of 2 banned values found)"],
    ]


def test_a_claim_with_many_reasons_shows_three_and_counts_the_others(tmp_path: Path) -> None:
    quotes = ["alpha", "beta", "gamma", "delta", "alpha"]
    cases = [{**reply(n, "Fine."), "quotes": [q]} for n, q in enumerate(quotes)]
    text = console_report(tmp_path, cases)
    start, end = text.index("Why claims did not pass (top reasons)"), text.index("Failing cases")
    rows = table_rows(text[start:end])
    assert [row[:2] for row in rows] == [["quotes_grounded", "2"], ["", "1"], ["", "1"], ["", "1"]]
    assert "'alpha'" in rows[0][2] and rows[-1][2] == "other reasons"


def test_each_failing_case_shows_an_excerpt_of_its_output_on_one_line(tmp_path: Path) -> None:
    text = console_report(tmp_path, CASES)
    rows = table_rows(text[text.index("Failing cases") :])
    excerpts = [row[3] for row in rows if row[1] == "↳ output"]
    assert len(excerpts) == 2
    assert excerpts[1] == "word " * 19 + "word… (4019 characters)"
    assert excerpts[0].startswith("Well, I am Sorry about that </pre></details><script>")


def test_a_redacted_output_stays_redacted_in_the_console_and_json_reports(
    tmp_path: Path,
) -> None:
    case = {"id": "leak", "input": "Hi?", "output": f"Sorry: {SECRET}", "quotes": ["Hi"]}
    policy = RecordPolicy(redact=("output",))
    text = console_report(tmp_path, [case], policy=policy)
    assert SECRET not in text
    assert ["", "↳ output", "", "[redacted]"] in table_rows(text)
    out = io.StringIO()
    (tmp_path / "json").mkdir()
    run_demo(tmp_path / "json", cases=[case], policy=policy, sinks=[JsonReportWriter(out)])
    (reported,) = json.loads(out.getvalue())["cases"]
    assert reported["content"] == {**case, "output": "[redacted]"}


def test_a_run_that_stores_no_content_shows_no_excerpt_and_reports_none(tmp_path: Path) -> None:
    policy = RecordPolicy(content="hashes")
    text = console_report(tmp_path, CASES, policy=policy)
    assert "↳ output" not in text and "Failing cases (2)" in text
    out = io.StringIO()
    (tmp_path / "json").mkdir()
    run_demo(tmp_path / "json", policy=policy, sinks=[JsonReportWriter(out)])
    assert all("content" not in c for c in json.loads(out.getvalue())["cases"])
