"""Markdown report for a pull-request comment or a CI step summary.

Everything quoted from a run (case ids, reasons, which may echo LLM output) goes
into code spans or escaped table cells, so it can neither break the layout nor
render as HTML, links or @-mentions on the page it is posted to.
"""

from __future__ import annotations

from typing import IO

from verifier._internal.markdown import code_span
from verifier.findings_tally import findings_lines
from verifier.judge_summary import JudgeClaimsNotRun, noise_line
from verifier.report._failures import FailingCase, FailingCaseSample
from verifier.results import PASS_RATE_NOTE, CaseResult, ClaimTally, RunSummary, rate_text

__all__ = [
    "MAX_FAILING_CASES",
    "MarkdownReportWriter",
    "code_span",
    "failing_case_lines",
    "heading_lines",
    "table_cell",
]

MAX_FAILING_CASES = 50
"""Failing cases listed at most; GitHub caps comments and step summaries in size."""


class MarkdownReportWriter:
    """Writes the Markdown report in :meth:`finish`; keeps only the first failures.

    Args:
        out: Where the report goes; never closed here.
        max_failing_cases: How many failing cases to list.
    """

    def __init__(self, out: IO[str], *, max_failing_cases: int = MAX_FAILING_CASES) -> None:
        self._out = out
        self._failures = FailingCaseSample(limit=max_failing_cases)

    def add_case(self, case: CaseResult) -> None:
        """Remembers ``case`` if it is among the first failing ones."""
        self._failures.add(case)

    def finish(self, summary: RunSummary) -> None:
        """Writes the heading, totals, breakdown table and failing cases."""
        lines = [*heading_lines(summary), "", *_breakdown(summary.breakdown)]
        if summary.judge_noise:
            lines += ["", "Judge noise:", ""]
            lines += [
                f"- {table_cell(noise_line(claim_id, noise))}"
                for claim_id, noise in summary.judge_noise_dict().items()
            ]
        usage = summary.judge_usage_line()
        if usage:
            lines += ["", usage]
        if self._failures.total:
            lines += ["", *failing_case_lines(self._failures)]
        self._out.write("\n".join(lines) + "\n")
        self._out.flush()


def table_cell(text: str) -> str:
    """Returns ``text`` safe inside one GitHub table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("\\", "\\\\").replace("|", "\\|")


def heading_lines(summary: RunSummary, *, head: bool = True) -> list[str]:
    """The report's heading (verdict, contract), its line of totals with the run id, and
    the notes and warnings a reader must see before the figures (and, with ``head``,
    the store's head)."""
    ok = summary.failed_cases == 0 and not summary.interrupted
    title = f"{summary.contract_id} v{summary.contract_version}"
    not_run = summary.judge_claims_not_run.line()
    if ok:
        verdict = f"all {summary.total_cases} cases passed"
    else:
        verdict = f"{summary.failed_cases} of {summary.total_cases} cases failed"
    mark = ("⚠️" if not_run else "✅") if ok else "❌"
    if not_run:
        verdict += f"; {not_run}"
    lines = [f"## {mark} {code_span(title)}: {verdict}", ""]
    lines.append(
        f"**{summary.total_cases}** cases · **{summary.passed_cases}** passed · "
        f"**{summary.failed_cases}** failed · average score "
        f"**{summary.average_score:.3f}** · run {code_span(summary.run_id)}"
    )
    if summary.overall is not None:
        lines += ["", table_cell(summary.overall.text())]
    for line in findings_lines(summary.findings_dict()):
        lines += ["", table_cell(f"findings {line}")]
    if not_run:
        lines += ["", f"> ⚠️ {_not_run_note(summary.judge_claims_not_run)}"]
    if summary.interrupted:
        lines += ["", "> ⚠️ The run was interrupted; the totals cover the cases that finished."]
    if summary.warnings:  # a path that found nothing: why the figures may mislead
        lines += ["", *(f"> ⚠️ {table_cell(warning)}" for warning in summary.warnings)]
    if summary.head and head:
        lines += [
            "",
            f"Store head after this run: {code_span(summary.head)} (a later "
            f"`verifier audit --expect-head` with it fails if the store was rewritten)",
        ]
    return lines


def _not_run_note(not_run: JudgeClaimsNotRun) -> str:
    """Which claims needing a judge the run did not check, and why, in a sentence."""
    parts = []
    if not_run.judges_off:
        ids = ", ".join(code_span(i) for i in not_run.judges_off)
        parts.append(f"skipped with `--judges off`, out of every case's score: {ids}")
    if not_run.not_chosen:
        ids = ", ".join(code_span(i) for i in not_run.not_chosen)
        parts.append(f"not chosen with `--claims`: {ids}")
    return f"Judge claims not run ({'; '.join(parts)})."


def _breakdown(breakdown: dict[str, ClaimTally]) -> list[str]:
    lines = [
        "| claim | pass rate | passed | failed | errors | skipped |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for claim_id, tally in breakdown.items():
        lines.append(
            f"| {table_cell(claim_id)} | {rate_text(tally.pass_rate)} | {tally.passed} "
            f"| {tally.failed} | {tally.errors} | {tally.skipped_text} |"
        )
    if not breakdown:
        lines.append("| *(no results)* | | | | | |")
    if any(tally.skipped for tally in breakdown.values()):
        lines += ["", f"*{PASS_RATE_NOTE[0].upper()}{PASS_RATE_NOTE[1:]}.*"]
    return lines


def failing_case_lines(failures: FailingCaseSample) -> list[str]:
    """A "Failing cases" section listing the sampled cases and counting the rest."""
    lines = ["### Failing cases", ""]
    for case in failures.cases:
        lines += _failing_case(case)
    if failures.left_out:
        lines += [
            "",
            f"*…and {failures.left_out} more failing cases not listed here; "
            "the JSON report and the gap store have them all.*",
        ]
    return lines


def _failing_case(case: FailingCase) -> list[str]:
    lines = [f"- {code_span(case.case_id)} (score {case.score:.3f})"]
    for claim in case.claims:
        lines.append(
            f"  - {code_span(claim.claim_id)} **{claim.status}**: {code_span(claim.reason)}"
        )
    return lines
