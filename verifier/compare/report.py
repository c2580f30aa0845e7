"""Rendering a run comparison: console table, JSON (``report_json``), and Markdown for a PR.

Differences are printed in percentage points, candidate minus baseline. A p-value in
brackets is the Holm-adjusted one; a dash there means the claim had too few
discordant pairs to be tested at all (see ``analysis``).
"""

from __future__ import annotations

from typing import IO, Any

from verifier._internal.markdown import code_span
from verifier.compare._console_table import UNBOUNDED, claims_table, console_width
from verifier.compare.analysis import POWER_FIGURES_MISSING, ClaimComparison, RunComparison
from verifier.compare.report_json import METHODS, as_json, overall_verdict
from verifier.results import rate_text

__all__ = [
    "METHODS",
    "as_json",
    "overall_verdict",
    "render_console",
    "render_markdown",
    "summary_line",
    "write_report",
]


def _diff(c: ClaimComparison) -> str:
    if not c.table.pairs:
        return "—"  # nothing paired: no rates to compare
    lo, hi = c.interval
    return f"{c.table.difference * 100:+.1f} pp [{lo * 100:+.1f}, {hi * 100:+.1f}]"


def _p(p: float | None) -> str:
    if p is None:
        return "—"
    return "<0.0001" if p < 0.0001 else f"{p:.4f}"


def _needed(c: ClaimComparison) -> str:
    if c.cases_needed_beyond is not None:
        return f">{c.cases_needed_beyond}"
    return "—" if c.cases_needed is None else str(c.cases_needed)


def _power(c: ClaimComparison) -> str:
    if c.power is None:
        return "—"
    # Say ">99%" rather than round a power short of certainty up to 100%.
    return ">99%" if 0.995 <= c.power < 1.0 else f"{c.power:.0%}"


def _left_out(comparison: RunComparison) -> list[str]:
    """One line per member with pairs left out, and the unpaired cases and claims."""
    paired = comparison.paired
    lines = [
        f"{paired.paired_cases} paired cases; left out: {paired.cases_only_in_baseline} "
        f"only in the baseline, {paired.cases_only_in_candidate} only in the candidate"
    ]
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    for c in every:
        if c.errors or c.skipped:
            lines.append(
                f"{c.name}: {c.errors} pairs with an error row and {c.skipped} with a "
                "skipped row left out"
            )
    if paired.claims_only_in_baseline:
        lines.append("claims only in the baseline: " + ", ".join(paired.claims_only_in_baseline))
    if paired.claims_only_in_candidate:
        lines.append("claims only in the candidate: " + ", ".join(paired.claims_only_in_candidate))
    for side, count in paired.duplicate_rows.items():
        if count:
            lines.append(f"{count} duplicate rows in the {side} ignored (the first was used)")
    for c in comparison.untestable:
        pairs = "pair" if c.discordant == 1 else "pairs"
        lines.append(
            f"{c.name}: {c.discordant} discordant {pairs} cannot be significant at alpha "
            f"{comparison.alpha:g} in any split (at least {comparison.min_discordant} "
            "are needed)"
        )
    return lines


def _power_note(comparison: RunComparison) -> str:
    if not comparison.power_figures:
        return POWER_FIGURES_MISSING
    return (
        f"power: of the exact McNemar test at alpha {comparison.alpha:g} with these pairs; "
        f"cases needed: smallest number of paired cases at which it reaches "
        f"{comparison.power:.0%} power; both at the observed discordant rates"
    )


def summary_line(comparison: RunComparison) -> str:
    """One sentence: what is significantly worse or better, or that nothing is."""
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    worse = [c.name for c in every if c.verdict == "worse"]
    better = [c.name for c in every if c.verdict == "better"]
    parts = []
    if worse:
        parts.append("significantly worse: " + ", ".join(worse))
    if better:
        parts.append("significantly better: " + ", ".join(better))
    if not parts:
        tail = "; see 'cases needed' for what this comparison could have detected"
        return f"no detectable change at alpha {comparison.alpha:g} (Holm-adjusted)" + (
            tail if comparison.power_figures else ""
        )
    return "; ".join(parts) + f" (alpha {comparison.alpha:g}, Holm-adjusted)"


def render_console(comparison: RunComparison, out: IO[str]) -> None:
    """Prints the comparison as rich tables."""
    from rich import box
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table
    from rich.text import Text

    console = Console(file=out, width=console_width(out))
    paired = comparison.paired
    base, cand = paired.baseline, paired.candidate
    styles = {"worse": "bold red", "better": "bold green", "no detectable change": "dim"}
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    rows = [
        (
            Text(c.name, style="italic" if c is comparison.overall else ""),
            str(c.table.pairs),
            rate_text(c.table.baseline_rate),
            rate_text(c.table.candidate_rate),
            _diff(c),
            f"{_p(c.p_value)} ({_p(c.p_adjusted)})",
            Text(c.verdict, style=styles[c.verdict]),
            _power(c),
            _needed(c),
        )
        for c in every
    ]
    title = f"{base.contract_id}: baseline {base.run_id} → candidate {cand.run_id}"
    sections = len(comparison.claims)
    tables = [claims_table(title, rows, sections)]
    # Too narrow for a claim on one line: the test's figures go to a table of their
    # own and the cells wrap at their spaces, rather than rich cutting figures short.
    unbounded = console.options.update_width(UNBOUNDED)
    narrow = Measurement.get(console, unbounded, tables[0]).maximum > console.width
    compact: dict[str, Any] = {"box": box.SIMPLE_HEAD, "pad_edge": False} if narrow else {}
    if narrow:
        tables = [
            claims_table(title, rows, sections, (0, 2, 3, 4, 6), compact),
            claims_table("Tests (exact McNemar)", rows, sections, (0, 1, 5, 7, 8), compact),
        ]
    for table in tables:
        console.print(table)
    graded = [c for c in every if c.scores is not None]
    if graded:
        scores = Table(
            title="Graded scores (Wilcoxon signed-rank)", title_justify="left", **compact
        )
        scores.add_column("claim", no_wrap=narrow, overflow="fold")
        for name in ("pairs that moved", "median difference", "p", "p Holm", "test"):
            scores.add_column(name, justify="right", overflow="fold")
        for c in graded:
            assert c.scores is not None
            scores.add_row(
                Text(c.name),
                str(c.scores.nonzero),
                f"{c.scores.median_difference:+.3f}",
                _p(c.scores.p_value),
                _p(c.scores.p_adjusted),
                c.scores.method,
            )
        console.print(scores)
    for line in _left_out(comparison):
        console.print(Text(line, style="dim"))
    for line in comparison.paired.findings_lines():
        console.print(Text(line))
    console.print(Text(_power_note(comparison), style="dim"))
    worse = bool(comparison.worse)
    console.print(Text(summary_line(comparison), style="bold red" if worse else "bold"))
    console.file.flush()


def _cell(text: str) -> str:

    return code_span(text)


def render_markdown(comparison: RunComparison, out: IO[str]) -> None:
    """Writes the comparison as Markdown sized for a pull-request comment."""
    paired = comparison.paired
    base, cand = paired.baseline, paired.candidate
    mark = {
        "worse": "**worse** ❌",
        "better": "**better** ✅",
        "no detectable change": "no detectable change",
    }
    lines = [
        f"## verifier compare: {_cell(base.contract_id)}",
        "",
        f"Baseline {_cell(base.run_id)} → candidate {_cell(cand.run_id)}: "
        f"{summary_line(comparison)}.",
        "",
    ]
    lines += [f"> **Warning:** {w}" for w in comparison.warnings]
    if comparison.warnings:
        lines.append("")
    lines += [
        "| claim | pairs | baseline | candidate | difference [95% CI] | p (Holm) | verdict "
        f"| power | cases needed ({comparison.power:.0%} power) |",
        "|---|--:|--:|--:|--:|--:|---|--:|--:|",
    ]
    every = [*comparison.claims, *([comparison.overall] if comparison.overall else [])]
    for c in every:
        name = f"*{c.name}*" if c is comparison.overall else _cell(c.name)
        lines.append(
            f"| {name} | {c.table.pairs} | {rate_text(c.table.baseline_rate)} | "
            f"{rate_text(c.table.candidate_rate)} | {_diff(c)} | {_p(c.p_value)} "
            f"({_p(c.p_adjusted)}) | {mark[c.verdict]} | {_power(c)} | {_needed(c)} |"
        )
    graded = [c for c in every if c.scores is not None]
    if graded:
        lines += [
            "",
            "Graded scores (Wilcoxon signed-rank):",
            "",
            "| claim | pairs that moved | median difference | p (Holm) | test |",
            "|---|--:|--:|--:|---|",
        ]
        for c in graded:
            assert c.scores is not None
            name = f"*{c.name}*" if c is comparison.overall else _cell(c.name)
            lines.append(
                f"| {name} | {c.scores.nonzero} | {c.scores.median_difference:+.3f} | "
                f"{_p(c.scores.p_value)} ({_p(c.scores.p_adjusted)}) | {c.scores.method} |"
            )
    lines += ["", *(f"- {line}" for line in _left_out(comparison))]
    lines += [f"- {_cell(line)}" for line in comparison.paired.findings_lines()]
    lines += [
        "",
        "<sub>Paired design: exact McNemar test on the discordant pairs, Holm-adjusted "
        f"across claims, alpha {comparison.alpha:g}; interval: Newcombe's paired "
        "square-and-add. *No detectable change* is not evidence of no change: *power* is "
        "the exact test's chance of detecting the observed difference with these pairs, "
        "and the last column how many paired cases would give it "
        f"{comparison.power:.0%}.</sub>",
    ]
    out.write("\n".join(lines) + "\n")
    out.flush()


def write_report(comparison: RunComparison, fmt: str, out: IO[str]) -> None:
    """Writes the comparison in ``fmt``: ``console``, ``json`` or ``markdown``."""
    if fmt == "json":
        import orjson

        out.write(orjson.dumps(as_json(comparison), option=orjson.OPT_INDENT_2).decode() + "\n")
        out.flush()
    elif fmt == "markdown":
        render_markdown(comparison, out)
    elif fmt == "console":
        render_console(comparison, out)
    else:
        raise ValueError(f"unknown comparison format {fmt!r}")
