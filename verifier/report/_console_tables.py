"""The console report's rich renderables: the summary panel and the tables.

Imported by ``ConsoleReportWriter.finish`` only, so a run imports rich when it prints
its report, not when it starts (see ``verifier.report.console``).
"""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from verifier._internal.terminal import printable, printable_line
from verifier.findings_tally import findings_lines
from verifier.judge_summary import served_line
from verifier.report._failures import FailingCaseSample
from verifier.report._reasons import ClaimReasons, ReasonTally
from verifier.report.console import rate_style
from verifier.results import PASS_RATE_NOTE, ClaimTally, JudgeNoise, RunSummary, rate_text

__all__ = ["print_report"]


def print_report(
    console: Console, summary: RunSummary, failures: FailingCaseSample, reasons: ReasonTally
) -> None:
    """Prints the summary panel, the claim table, why claims did not pass and the first
    failing cases."""
    console.print(_summary_panel(summary))
    # Under the headline: a path that found nothing is why the figures below mislead.
    for warning in summary.warnings:
        console.print(Text(printable_line(f"warning: {warning}"), style="yellow"))
    console.print(_breakdown_table(summary.breakdown))
    if summary.judge_noise:
        console.print(_noise_table(summary.judge_noise))
        for claim_id, figures in summary.judge_noise_dict().items():
            if served := served_line(figures):
                # One line whatever the width: the model ids are what a reader greps.
                line = Text(printable_line(f"claim {claim_id}: {served}"), style="yellow")
                console.print(line, soft_wrap=True)
    top = reasons.top()
    if top:
        console.print(_reasons_table(top))
    if failures.total:
        console.print(_failures_table(failures))
    if failures.left_out:
        console.print(
            Text(
                f"…and {failures.left_out} more failing cases; "
                "the JSON report and the gap store have them all.",
                style="dim",
            )
        )
    console.file.flush()


def _summary_panel(summary: RunSummary) -> Panel:
    ok = summary.failed_cases == 0 and not summary.interrupted
    text = Text()
    if ok:
        text.append(f"✔ all {summary.total_cases} cases passed", style="bold green")
    else:
        text.append(
            f"✘ {summary.failed_cases} of {summary.total_cases} cases failed", style="bold red"
        )
    text.append(printable(f" · average score {summary.average_score:.3f} · run {summary.run_id}"))
    if summary.overall is not None:
        text.append(printable(f"\n{summary.overall.text()}"))
    for line in findings_lines(summary.findings_dict()):
        text.append(printable(f"\nfindings {line}"))
    not_run = summary.judge_claims_not_run.line()
    if not_run:
        text.append(f"\n{not_run}: the cases were scored without them", style="bold yellow")
    if summary.interrupted:
        text.append("\ninterrupted: totals cover the cases that finished", style="yellow")
    usage = summary.judge_usage_line()
    if usage:
        text.append(f"\n{usage}", style="dim")
    if summary.store:
        text.append(printable(f"\nresults stored in {summary.store}"), style="dim")
    title = Text(printable_line(f"verifier · {summary.contract_id} v{summary.contract_version}"))
    border = ("yellow" if not_run else "green") if ok else "red"
    return Panel(text, title=title, title_align="left", expand=False, border_style=border)


def _breakdown_table(breakdown: dict[str, ClaimTally]) -> Table:
    skips = any(tally.skipped for tally in breakdown.values())
    table = Table(
        title="Claims",
        title_justify="left",
        caption=PASS_RATE_NOTE if skips else None,
        caption_justify="left",
    )
    table.add_column("claim")
    for name in ("pass rate", "passed", "failed", "errors", "skipped"):
        table.add_column(name, justify="right")
    for claim_id, tally in breakdown.items():
        table.add_row(
            Text(printable_line(claim_id)),
            Text(rate_text(tally.pass_rate), style=rate_style(tally)),
            str(tally.passed),
            str(tally.failed),
            str(tally.errors),
            tally.skipped_text,
        )
    return table


def _noise_table(noise: dict[str, JudgeNoise]) -> Table:
    table = Table(title="Judge noise", title_justify="left")
    table.add_column("claim")
    for name in (
        "verdicts",
        "pass rate of verdicts (95% CI)",
        "position flips",
        "sample agreement",
    ):
        table.add_column(name, justify="right")
    for claim_id, claim in noise.items():
        figures = claim.as_dict()
        rate, (low, high) = figures["pass_rate"], figures["pass_rate_ci95"]
        flips = "—" if not claim.pairwise else f"{claim.flips}/{claim.pairwise}"
        if claim.pairwise:
            flips += f" ({figures['flip_rate']:.1%})"
        agreement = figures["sample_agreement"]
        table.add_row(
            Text(printable_line(claim_id)),
            str(claim.verdicts),
            "—" if rate is None else f"{rate:.1%} ({low:.1%}-{high:.1%})",
            flips,
            "—" if agreement is None else f"{agreement:.1%}",
        )
    return table


def _reasons_table(claims: list[ClaimReasons]) -> Table:
    table = Table(title="Why claims did not pass (top reasons)", title_justify="left")
    table.add_column("claim")
    table.add_column("results", justify="right")
    table.add_column("reason", overflow="fold")
    for claim in claims:
        claim_cell = Text(printable_line(claim.claim_id))
        for top in claim.top:
            table.add_row(claim_cell, str(top.count), Text(top.reason))
            claim_cell = Text("")
        if claim.others:
            table.add_row(claim_cell, str(claim.others), Text("other reasons", style="dim"))
    return table


def _failures_table(failures: FailingCaseSample) -> Table:
    shown = len(failures.cases)
    title = f"Failing cases ({shown})"
    if shown < failures.total:
        title = f"Failing cases (first {shown} of {failures.total})"
    table = Table(title=title, title_justify="left")
    table.add_column("case")
    table.add_column("claim")
    table.add_column("status")
    table.add_column("reason", overflow="fold")
    for case in failures.cases:
        # Reasons and excerpts are escaped by one_line already; ids are not.
        case_cell = Text(f"{printable_line(case.case_id)} ({case.score:.2f})")
        for claim in case.claims:
            # Text, never a markup string: reasons quote model output, and
            # "[red]" in an output must print as written.
            table.add_row(
                case_cell,
                Text(printable_line(claim.claim_id)),
                Text(claim.status, style="red" if claim.status == "fail" else "magenta"),
                Text(claim.reason),
            )
            case_cell = Text("")
        if case.excerpt is not None:
            table.add_row(
                case_cell, Text("↳ output", style="dim"), Text(""), Text(case.excerpt, style="dim")
            )
    return table
