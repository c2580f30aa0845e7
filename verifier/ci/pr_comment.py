"""The body of a pull-request comment: the run's breakdown and what changed against a baseline.

The body starts with a hidden marker, ``<!-- verifier-pr-comment:CONTRACT_ID -->``, so
a workflow can find the comment it posted before and update it rather than add one
per push (one comment per contract). With a baseline (:mod:`verifier.ci.baseline`)
each claim's pass rate shows its change, and the comment lists the results that
newly fail and those that were fixed, matched on (case id, claim id).

GitHub rejects comments over 65,536 characters, so every list is capped and counts
what it leaves out. Text quoted from a run goes through the Markdown report's
escaping (code spans, escaped table cells).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from verifier.ci.baseline import BaselineRun
from verifier.report._failures import FailingCaseSample, one_line
from verifier.report.markdown import (
    MAX_FAILING_CASES,
    code_span,
    failing_case_lines,
    heading_lines,
    table_cell,
)
from verifier.results import CaseResult, ClaimTally, RowStatus, RunSummary, rate_text

__all__ = ["MAX_BODY_CHARS", "MAX_CHANGES", "PrCommentWriter", "comment_marker"]

MAX_CHANGES = 25
"""New failures (and fixed results) listed at most."""

MAX_FAILING_IN_COMMENT = min(MAX_FAILING_CASES, 25)

MAX_BODY_CHARS = 60_000
"""Below GitHub's 65,536-character limit on a comment, with room for the marker."""

_CUT_NOTE = "\n\n*…cut here: GitHub limits a comment's size; the JSON report has every result.*\n"


def comment_marker(contract_id: str) -> str:
    """The hidden first line that identifies the comment of one contract."""
    return f"<!-- verifier-pr-comment:{contract_id} -->"


@dataclass(frozen=True, slots=True)
class _Change:
    case_id: str
    claim_id: str
    status: RowStatus
    reason: str


@dataclass(slots=True)
class _Changes:
    """Results that changed against the baseline: a bounded sample and the count."""

    items: list[_Change] = field(default_factory=list)
    total: int = 0

    def add(self, change: _Change) -> None:
        self.total += 1
        if len(self.items) < MAX_CHANGES:
            self.items.append(change)


class PrCommentWriter:
    """A report sink writing the pull-request comment body to ``out`` in ``finish``.

    Args:
        out: Where the body goes; never closed here.
        baseline: The run to compare with, or ``None`` for the breakdown alone.
    """

    def __init__(self, out: IO[str], *, baseline: BaselineRun | None = None) -> None:
        self._out = out
        self._baseline = baseline
        self._failures = FailingCaseSample(limit=MAX_FAILING_IN_COMMENT)
        self._new_failures = _Changes()
        self._fixed = _Changes()

    def add_case(self, case: CaseResult) -> None:
        """Samples the case if it failed and notes how its results changed."""
        self._failures.add(case)
        baseline = self._baseline
        if baseline is None:
            return
        known_case = case.case_id in baseline.cases
        for result in case.results:
            before = baseline.failing.get((case.case_id, result.claim_id))
            failing = result.status in ("fail", "error")
            if failing and before is None:
                reason = one_line(result.reason, 200)
                if not known_case:
                    reason = f"(new case) {reason}"
                self._new_failures.add(
                    _Change(case.case_id, result.claim_id, result.status, reason)
                )
            elif before is not None and result.status == "pass":
                self._fixed.add(_Change(case.case_id, result.claim_id, before, ""))

    def finish(self, summary: RunSummary) -> None:
        """Writes the whole comment body, listing fewer failing cases if it is too long."""
        failures = self._failures
        body = self._body(summary, failures)
        while len(body) > MAX_BODY_CHARS and failures.cases:
            kept = failures.cases[: len(failures.cases) // 2]
            failures = FailingCaseSample(failures.limit, kept, failures.total)
            body = self._body(summary, failures)
        if len(body) > MAX_BODY_CHARS:
            body = body[: MAX_BODY_CHARS - len(_CUT_NOTE)] + _CUT_NOTE
        self._out.write(body)
        self._out.flush()

    def _body(self, summary: RunSummary, failures: FailingCaseSample) -> str:
        lines = [comment_marker(summary.contract_id), *heading_lines(summary, head=False)]
        if self._baseline is not None:
            lines += ["", *_against(summary, self._baseline)]
        lines += ["", *_breakdown(summary.breakdown, self._baseline)]
        if self._baseline is not None:
            lines += ["", *self._changes()]
        if failures.total:
            lines += ["", *failing_case_lines(failures)]
        if summary.head:
            lines += ["", _head_line(summary.head)]
        usage = summary.judge_usage_line()
        if usage:
            lines += ["", f"<sub>{usage}</sub>"]
        return "\n".join(lines) + "\n"

    def _changes(self) -> list[str]:
        new, fixed = self._new_failures, self._fixed
        lines = ["### Changes against the baseline", ""]
        if not new.total and not fixed.total:
            return [*lines, "No result changed between passing and failing."]
        lines.append(
            f"**{new.total}** new failing result{'s' if new.total != 1 else ''} · "
            f"**{fixed.total}** fixed"
        )
        if new.total:
            lines += ["", f"<details open><summary>🔴 Newly failing ({new.total})</summary>", ""]
            lines += [
                f"- {code_span(c.case_id)} · {code_span(c.claim_id)} **{c.status}**: "
                f"{code_span(c.reason)}"
                for c in new.items
            ]
            lines += [*_more(new), "", "</details>"]
        if fixed.total:
            lines += ["", f"<details><summary>🟢 Fixed ({fixed.total})</summary>", ""]
            lines += [
                f"- {code_span(c.case_id)} · {code_span(c.claim_id)} (was **{c.status}**)"
                for c in fixed.items
            ]
            lines += [*_more(fixed), "", "</details>"]
        return lines


def _head_line(head: str) -> str:
    """The store's head after the run, short, with the command that checks it later."""
    return (
        f"🔒 Store head after this run: {code_span(head[:12])} · check later that the store "
        f"still holds it: `verifier audit --expect-head {head}` (or `--witness FILE` with "
        "the file `verifier run --witness FILE` appends it to)"
    )


def _more(changes: _Changes) -> list[str]:
    left_out = changes.total - len(changes.items)
    return [f"- *…and {left_out} more*"] if left_out else []


def _against(summary: RunSummary, baseline: BaselineRun) -> list[str]:
    lines = [f"Compared with baseline run {code_span(baseline.run_id)}"]
    if baseline.source != baseline.run_id:
        lines[0] += f" ({code_span(baseline.source)})"
    if baseline.passed_cases is not None and baseline.total_cases:
        before = baseline.passed_cases / baseline.total_cases
        after = summary.passed_cases / summary.total_cases if summary.total_cases else 0.0
        lines[0] += (
            f": cases passing {baseline.passed_cases}/{baseline.total_cases} → "
            f"{summary.passed_cases}/{summary.total_cases} ({_delta(after - before)})"
        )
    lines[0] += "."
    if baseline.contract_id != summary.contract_id:
        lines += [
            "",
            f"> ⚠️ The baseline checked another contract, "
            f"{code_span(f'{baseline.contract_id} v{baseline.contract_version}')}.",
        ]
    elif baseline.contract_sha256 and baseline.contract_sha256 != summary.contract_sha256:
        lines += [
            "",
            f"> ℹ️ The contract changed since the baseline (v{baseline.contract_version} → "  # noqa: RUF001
            f"v{summary.contract_version}); claims may have been added, removed or edited.",
        ]
    return lines


def _breakdown(breakdown: dict[str, ClaimTally], baseline: BaselineRun | None) -> list[str]:
    if baseline is None:
        lines = [
            "| claim | pass rate | passed | failed | errors | skipped |",
            "|---|---:|---:|---:|---:|---:|",
        ]
    else:
        lines = [
            "| claim | pass rate | vs baseline | passed | failed | errors | skipped |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
    for claim_id, tally in breakdown.items():
        change = ""
        if baseline is not None:
            before = baseline.breakdown.get(claim_id)
            change = " new |" if before is None else f" {_claim_delta(tally, before)} |"
        lines.append(
            f"| {table_cell(claim_id)} | {rate_text(tally.pass_rate)} |{change} {tally.passed} "
            f"| {tally.failed} | {tally.errors} | {tally.skipped_text} |"
        )
    if not breakdown:
        lines.append("| *(no results)* | |" + (" |" if baseline else "") + " | | | |")
    if baseline is not None:
        gone = [claim_id for claim_id in baseline.breakdown if claim_id not in breakdown]
        if gone:
            listed = ", ".join(
                f"{code_span(c)} ({rate_text(baseline.breakdown[c].pass_rate)})" for c in gone
            )
            lines += ["", f"*In the baseline only:* {listed}."]
    return lines


def _claim_delta(now: ClaimTally, before: ClaimTally) -> str:
    """A claim's pass-rate change; ``—`` when either run has no rate for it (it checked
    none of its results)."""
    if now.pass_rate is None or before.pass_rate is None:
        return "—"
    return _delta(now.pass_rate - before.pass_rate)


def _delta(change: float) -> str:
    """A pass-rate change in percentage points with an arrow (``▲ +5.0 pp``)."""
    points = round(change * 100, 1)
    if points > 0:
        return f"▲ +{points:.1f} pp"
    if points < 0:
        return f"▼ {points:.1f} pp"
    return "= 0.0 pp"
