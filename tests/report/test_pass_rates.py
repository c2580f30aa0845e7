"""A claim's pass rate has one definition in every report: passes over its checked
results (errors count, skips do not), and no rate at all when nothing was checked."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from tests.conftest import EXAMPLES
from verifier.report.console import ConsoleReportWriter, rate_style
from verifier.report.json_report import JsonReportWriter
from verifier.report.markdown import MarkdownReportWriter
from verifier.results import CaseResult, ClaimResult, ClaimTally, RunSummary
from verifier.run.api import run_contract
from verifier.run.assembly import Judges


def table_rows(text: str, title: str) -> dict[str, list[str]]:
    """The rows of the rich table titled ``title`` in ``text``, by their first cell."""
    lines = text[text.index(title) :].splitlines()[1:]
    rows: dict[str, list[str]] = {}
    for line in lines:
        if "│" not in line:
            if rows and line.startswith("└"):
                break
            continue
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        rows[cells[0]] = cells[1:]
    return rows


def test_skips_are_out_of_the_pass_rate_and_errors_are_in() -> None:
    assert ClaimTally(passed=3, skipped=2).pass_rate == 1.0
    assert ClaimTally(passed=1, failed=1, errors=2, skipped=4).pass_rate == 0.25
    assert ClaimTally(skipped=4, not_applicable=1).pass_rate is None
    assert ClaimTally(skipped=4).as_dict()["pass_rate"] is None


def test_the_example_shows_one_pass_rate_per_judged_claim_in_both_tables(tmp_path: Path) -> None:
    out = io.StringIO()
    writer = ConsoleReportWriter(out, console=Console(file=out, width=200))
    run_contract(
        EXAMPLES / "account-research.yaml",
        EXAMPLES / "account-research.cases.jsonl",
        store=tmp_path / "gaps.db",
        judges=Judges(mode="replay"),
        sinks=[writer],
    )
    text = out.getvalue()
    claims, noise = table_rows(text, "Claims"), table_rows(text, "Judge noise")

    # gaps_acknowledged waits for a gate two cases fail: 3 verdicts, all passes.
    assert claims["gaps_acknowledged"][:5] == ["100.0%", "3", "0", "0", "2"]
    assert set(noise) == {"gaps_acknowledged", "executive_tone"}
    for claim_id, row in noise.items():
        assert row[1].split(" (")[0] == claims[claim_id][0], (claim_id, row, claims[claim_id])
    assert "pass rate: passes over the results checked (skips left out)" in text


def test_a_claim_with_no_checked_result_has_no_pass_rate_in_any_report(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [
        make_case(f"c{n}", make_claim("cites"), make_claim("tone", "skipped", "judges are off"))
        for n in range(3)
    ]
    summary = make_summary(cases)
    console, markdown, report = io.StringIO(), io.StringIO(), io.StringIO()
    writers = [
        ConsoleReportWriter(console, console=Console(file=console, width=200)),
        MarkdownReportWriter(markdown),
        JsonReportWriter(report),
    ]
    for writer in writers:
        for case in cases:
            writer.add_case(case)
        writer.finish(summary)

    assert table_rows(console.getvalue(), "Claims")["tone"][0] == "—"
    assert "| tone | — | 0 | 0 | 0 | 3 |" in markdown.getvalue().splitlines()
    assert json.loads(report.getvalue())["assertion_breakdown"]["tone"]["pass_rate"] is None
    assert rate_style(summary.breakdown["tone"]) == "dim"
