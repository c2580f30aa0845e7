"""``verifier audit --recheck --format markdown``: the counts, then a table a finding."""

from __future__ import annotations

from verifier._internal.markdown import code_span
from verifier.recheck.report import WHY, Difference, RecheckReport

__all__ = ["recheck_markdown"]


def recheck_markdown(report: RecheckReport) -> str:
    """The re-check as Markdown (a PR comment or a CI step summary), ending in a newline."""
    mark = "✅" if report.ok else "❌"
    lines = [
        f"## {mark} verifier audit --recheck",
        "",
        "| rechecked | agree | differ | not recheckable |",
        "|---:|---:|---:|---:|",
        f"| {report.rechecked} | {report.agree} | {report.differ} "
        f"| {sum(report.not_recheckable.values())} |",
        "",
        f"head of the store as rechecked: {code_span(report.head or 'none')}",
    ]
    if report.not_recheckable:
        lines += ["", "| not recheckable | rows |", "|---|---:|"]
        lines += [
            f"| {WHY[key]} | {count} |" for key, count in sorted(report.not_recheckable.items())
        ]
    if report.tampered:
        lines += ["", "**Tampered contents:** " + ", ".join(code_span(s) for s in report.tampered)]
    lines += _table(None, report.differences)
    lines += _table(
        f"**{report.unconfirmed_rows} stored verdict(s) recheck to an error now** "
        "(the store no longer bears them out):",
        report.unconfirmed,
    )
    lines += _table(
        f"**{report.answered} stored error(s) are answerable now** "
        "(the run had no answer, the store has one; not a difference):",
        report.answerable,
    )
    return "\n".join(lines) + "\n"


def _table(title: str | None, rows: list[Difference]) -> list[str]:
    if not rows:
        return []
    lines = ["", title, ""] if title else [""]
    lines += [
        "| seq | run | case | claim | stored | rechecked | reason |",
        "|---:|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {d.seq} | {code_span(d.run_id)} | {code_span(d.case_id)} | "
        f"{code_span(d.claim_id)} | {d.stored} | {d.rechecked} | {code_span(d.reason)} |"
        for d in rows
    ]
    return lines
