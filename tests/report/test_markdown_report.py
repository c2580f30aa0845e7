from __future__ import annotations

import io
from collections.abc import Callable, Iterable

from verifier.report import make_writer
from verifier.report.markdown import MarkdownReportWriter, code_span, table_cell
from verifier.results import CaseResult, ClaimResult, RunSummary


def render(cases: Iterable[CaseResult], summary: RunSummary) -> str:
    out = io.StringIO()
    writer = MarkdownReportWriter(out)
    for case in cases:
        writer.add_case(case)
    writer.finish(summary)
    return out.getvalue()


def test_heading_names_contract_version_and_a_failing_verdict(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    first = render(mixed_cases, make_summary(mixed_cases)).splitlines()[0]

    assert first.startswith("## ❌ ")
    assert "account-research v2" in first
    assert "2 of 3 cases failed" in first


def test_heading_shows_a_passing_verdict_when_no_case_failed(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [make_case("a", make_claim("c")), make_case("b", make_claim("c"))]

    first = render(cases, make_summary(cases)).splitlines()[0]

    assert first.startswith("## ✅ ")
    assert "all 2 cases passed" in first


def test_interrupted_run_is_never_shown_as_passing(
    make_summary: Callable[..., RunSummary],
) -> None:
    text = render([], make_summary([], interrupted=True))

    assert text.startswith("## ❌ ")
    assert "interrupted" in text


def test_totals_line_and_breakdown_table_are_present(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    lines = render(mixed_cases, make_summary(mixed_cases)).splitlines()

    assert any("**3** cases · **1** passed · **2** failed" in line for line in lines)
    assert "| claim | pass rate | passed | failed | errors | skipped |" in lines
    assert "| cites_sources | 66.7% | 2 | 1 | 0 | 0 |" in lines
    assert "| short_enough | 66.7% | 2 | 0 | 1 | 0 |" in lines
    # A skipped result was not checked: it is out of the pass rate, which says so.
    assert "| acknowledge_gaps | 100.0% | 2 | 0 | 0 | 1 |" in lines
    assert "*Pass rate: passes over the results checked (skips left out).*" in lines


def test_pipes_and_newlines_in_table_cells_are_escaped(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [make_case("a", make_claim("left|right\nnext"))]

    lines = render(cases, make_summary(cases)).splitlines()

    assert "| left\\|right next | 100.0% | 1 | 0 | 0 | 0 |" in lines
    assert table_cell("a|b\r\nc\\") == "a\\|b c\\\\"


def test_failing_cases_list_their_failing_claims_and_reasons(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    text = render(mixed_cases, make_summary(mixed_cases))
    section = text[text.index("### Failing cases") :]

    assert "- `case-2` (score 0.333)" in section
    assert "  - `cites_sources` **fail**: `no [source: ...] marker found`" in section
    assert "  - `short_enough` **error**: `judge reply had no verdict`" in section
    assert "case-1" not in section
    assert "more failing cases" not in section


def test_at_most_fifty_failing_cases_are_listed_and_the_rest_counted(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [make_case(f"bad-{i}", make_claim("c", "fail", "nope")) for i in range(60)]

    text = render(cases, make_summary(cases))

    assert text.count("- `bad-") == 50
    assert "`bad-49`" in text and "`bad-50`" not in text
    assert "10 more failing cases" in text


def test_reasons_quoting_markup_render_as_literal_code(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    reason = "output was <img src=x onerror=alert(1)> @octocat `rm -rf` |\nline two"
    cases = [make_case("a", make_claim("c", "fail", reason))]

    text = render(cases, make_summary(cases))

    assert "``output was <img src=x onerror=alert(1)> @octocat `rm -rf` | line two``" in text


def test_code_span_fences_around_backticks_at_the_edges() -> None:
    assert code_span("plain") == "`plain`"
    assert code_span("`tick` and ``two``") == "``` `tick` and ``two`` ```"
    assert code_span("  \n ") == "*(empty)*"


def test_make_writer_markdown_writes_to_the_given_stream(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    out = io.StringIO()
    writer = make_writer("markdown", out)
    for case in mixed_cases:
        writer.add_case(case)
    writer.finish(make_summary(mixed_cases))

    assert "### Failing cases" in out.getvalue()
