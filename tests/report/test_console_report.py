from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Callable, Iterable

import pytest
from rich.console import Console

from verifier.report import REPORT_FORMATS, make_writer
from verifier.report.console import ConsoleReportWriter, rate_style
from verifier.report.progress import ProgressReporter
from verifier.results import CaseResult, ClaimResult, ClaimTally, RunSummary


def render(cases: Iterable[CaseResult], summary: RunSummary) -> str:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    writer = ConsoleReportWriter(out, console=console)
    for case in cases:
        writer.add_case(case)
    writer.finish(summary)
    return out.getvalue()


def test_summary_names_the_contract_and_the_failed_count(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    text = render(mixed_cases, make_summary(mixed_cases))

    assert "account-research v2" in text
    assert "2 of 3 cases failed" in text
    assert "average score 0.667" in text


def test_breakdown_table_lists_every_claim_with_its_pass_rate(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [
        make_case("a", make_claim("cites_sources"), make_claim("short_enough", "fail")),
        make_case("b", make_claim("cites_sources"), make_claim("short_enough")),
    ]

    lines = render(cases, make_summary(cases)).splitlines()
    cites = next(line for line in lines if "cites_sources" in line and "%" in line)
    short = next(line for line in lines if "short_enough" in line and "%" in line)

    assert "100.0%" in cites
    assert "50.0%" in short


def test_pass_rate_colour_goes_from_green_to_yellow_to_red() -> None:
    assert rate_style(ClaimTally(passed=10)) == "green"
    assert rate_style(ClaimTally(passed=9, failed=1)) == "yellow"
    assert rate_style(ClaimTally(passed=1, errors=1)) == "red"
    assert rate_style(ClaimTally()) == "dim"


def test_failing_cases_show_claim_and_reason(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    text = render(mixed_cases, make_summary(mixed_cases))
    section = text[text.index("Failing cases") :]

    assert "case-2" in section and "no [source: ...] marker found" in section
    assert "case-3" in section and "judge reply had no verdict" in section


def test_only_the_first_twenty_failing_cases_are_shown(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [make_case(f"bad-{i:02d}", make_claim("c", "fail", "nope")) for i in range(25)]

    text = render(cases, make_summary(cases))

    assert "Failing cases (first 20 of 25)" in text
    assert "bad-19" in text and "bad-20" not in text
    assert "5 more failing cases" in text


def test_rich_markup_in_a_reason_is_printed_as_written(
    make_case: Callable[..., CaseResult],
    make_claim: Callable[..., ClaimResult],
    make_summary: Callable[..., RunSummary],
) -> None:
    cases = [make_case("a", make_claim("c", "fail", "said [bold red]hi[/bold red]"))]

    assert "said [bold red]hi[/bold red]" in render(cases, make_summary(cases))


def test_make_writer_console_prints_to_the_given_stream(
    mixed_cases: list[CaseResult], make_summary: Callable[..., RunSummary]
) -> None:
    out = io.StringIO()
    writer = make_writer("console", out)
    for case in mixed_cases:
        writer.add_case(case)
    writer.finish(make_summary(mixed_cases))

    assert "cites_sources" in out.getvalue()


def test_make_writer_rejects_an_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        make_writer("html", io.StringIO())  # type: ignore[arg-type]
    assert REPORT_FORMATS == ("console", "json", "junit", "markdown")


@pytest.mark.e2e
def test_importing_the_report_package_does_not_import_rich() -> None:
    code = "import sys, verifier.report; print('rich' in sys.modules or 'orjson' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "False"


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_silent_when_stderr_is_not_a_terminal() -> None:
    stream = io.StringIO()
    progress = ProgressReporter(stream=stream, delay=0.0)
    progress.start(10)
    time.sleep(0.1)
    progress.advance(10)
    progress.close()

    assert not progress.enabled
    assert not progress.shown
    assert stream.getvalue() == ""


def test_progress_is_silent_in_ci_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")

    assert not ProgressReporter(stream=_FakeTerminal()).enabled


def test_a_fast_run_shows_no_progress_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    stream = _FakeTerminal()
    with ProgressReporter(stream=stream) as progress:
        progress.start(3)
        progress.advance(3)

    assert progress.enabled
    assert not progress.shown
    assert stream.getvalue() == ""


def test_a_slow_run_on_a_terminal_shows_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    stream = _FakeTerminal()
    progress = ProgressReporter(stream=stream, delay=0.01)
    progress.start(4)
    progress.advance(1)
    deadline = time.monotonic() + 5
    while not progress.shown and time.monotonic() < deadline:
        time.sleep(0.01)
    progress.advance(1)
    progress.close()
    progress.close()

    assert progress.shown
    assert stream.getvalue() != ""


def test_a_case_whose_claims_share_one_error_is_listed_once() -> None:
    import io

    from verifier.report import make_writer
    from verifier.results import CaseResult, ClaimResult, RunSummary

    reason = "line 7: invalid JSON: unexpected end of data"
    results = tuple(ClaimResult(f"c{i}", "rubric", "error", None, reason, {}) for i in range(5))
    case = CaseResult("line-7", 7, results, 0.0, False)
    summary = RunSummary("r", "demo", 1, "0" * 64, "demo.yaml", 1.0, "2026-11-25T00:00:00Z")
    summary.add_case(case)
    out = io.StringIO()
    writer = make_writer("console", out)
    writer.add_case(case)
    writer.finish(summary)
    text = out.getvalue()
    # Once among the top reasons and once in the failing cases, never once per claim.
    assert text.count("invalid JSON") == 2 and text.count("(every claim)") == 2
