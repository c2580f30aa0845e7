"""``verifier audit`` for a terminal and in Markdown (a PR comment or CI step summary).

Both show the integrity verdict first, then degradation alerts, judge drift (and the
judge changes a recorded succession explains, apart from it) and a short view of each
claim's trend (the JSON output has every point). A claim change
that a judge change explains (same contract, run and triples, the claim judged by
that judge) is folded into the judge's line rather than repeated. An alert whose
window spans a judge succession says so in its line, and the trends list where the
claims cross successions, run by run.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier._internal.markdown import code_span
from verifier.analyses.crossings import succession_note
from verifier.analyses.drift import DriftChange
from verifier.analyses.history import HistoryAudit
from verifier.analyses.trends import ClaimTrend

__all__ = ["render_console", "render_history", "render_markdown"]

_DAYS_SHOWN = 7
_PROBLEMS_SHOWN = 50


def render_history(audit: HistoryAudit, fmt: str) -> str:
    """The audit as ``console``, ``json`` or ``markdown`` text, ending in a newline."""
    if fmt == "json":
        import orjson

        return orjson.dumps(audit.as_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "markdown":
        return render_markdown(audit)
    return render_console(audit) + "\n"


def render_console(audit: HistoryAudit) -> str:
    """The integrity report as ``audit_store`` renders it, then the history sections."""
    lines = [audit.integrity.render_text(), ""]
    lines.append(_alerts_heading(audit))
    lines += [f"  ALERT {alert.describe()}" for alert in audit.alerts]
    lines += [f"  NOTE {shortfall.describe()}" for shortfall in audit.shortfalls]
    lines.append(_drift_heading(audit.drift))
    for change, claims in _folded(audit.drift):
        also = f" (claims {', '.join(claims)})" if claims else ""
        lines.append(f"  {_where(change)}: {change.describe()}{also}")
    if audit.successions:
        lines.append(_successions_heading(audit.successions))
        for change, claims in _folded(audit.successions):
            also = f" (claims {', '.join(claims)})" if claims else ""
            lines.append(f"  {_where(change)}{also}: {change.succession}")
    lines += [f"  SERVED {m.describe()}" for m in audit.mismatches]
    lines.append(_trends_heading(audit))
    shown = _shown(audit)
    width = max((len(t.name) for t in audit.trends.claims), default=0)
    for trend in audit.trends.claims:
        rates = " ".join(f"{r.pass_rate:.3f}" for r in trend.runs[-shown:])
        more = "... " if len(trend.runs) > shown else ""
        days = ", ".join(f"{d.day} {d.pass_rate:.3f}" for d in trend.days[-_DAYS_SHOWN:])
        lines.append(f"  {trend.name:<{width}}  runs: {more}{rates}  days: {days}")
    lines += [f"  SUCCESSION {line}" for line in _mark_lines(audit)]
    return "\n".join(lines)


def render_markdown(audit: HistoryAudit) -> str:
    """The whole audit as GitHub-flavoured Markdown; quoted values are code spans."""
    report = audit.integrity
    scope = f"run {_code(report.run_id)} of " if report.run_id else ""
    mark = "❌" if not report.ok else ("⚠️" if audit.alerts else "✅")
    verdict = "integrity problems" if not report.ok else "no integrity problems"
    lines = [
        f"## {mark} verifier audit: {verdict}",
        "",
        f"{scope}{_code(report.location)}: **{report.rows_checked}** rows checked in "
        f"**{report.runs_seen}** run(s); hash chain walked over **{report.chain_rows}** rows.",
        "",
        _code(report.head_line()),
    ]
    if report.in_flight:
        lines += ["", _code(report.in_flight_line())]
    if noise := report.run_noise_lines():
        lines += ["", "Judge noise:", "", *(f"- {_code(line)}" for line in noise)]
    if not report.ok:
        lines += ["", *_problems(audit)]
    lines += ["", f"### {_alerts_heading(audit)}"]
    if audit.alerts:
        lines += [
            "",
            "| claim | run | started | pass rate | previous mean ± sd | alert below |",
            "|---|---|---|---:|---:|---:|",
        ]
        lines += [
            f"| {_code(a.name)} | {_code(a.run_id)} | {_code(a.started_at)} "
            f"| {a.pass_rate:.1%} | {a.mean:.1%} ± {a.stdev:.1%} "
            f"({len(a.prior_runs)} runs) | {a.threshold:.1%} |"
            for a in audit.alerts
        ]
        spans = [(a, succession_note(row)) for a in audit.alerts for row in a.successions]
        lines += [""] if spans else []
        lines += [f"- {_code(a.name)} at {_code(a.run_id)} spans {_code(n)}" for a, n in spans]
    if audit.shortfalls:
        lines += ["", *(f"- not judged: {_code(s.describe())}" for s in audit.shortfalls)]
    lines += ["", f"### {_drift_heading(audit.drift)}"]
    if audit.drift:
        lines += ["", "| judged | run | first row | change |", "|---|---|---|---|"]
        for change, claims in _folded(audit.drift):
            subject = f"{change.scope} {_code(f'{change.contract_id}/{change.subject}')}"
            if change.verdict_kind:
                subject += f" ({change.verdict_kind} verdicts)"
            if claims:
                subject += " (claims " + ", ".join(_code(c) for c in claims) + ")"
            lines.append(
                f"| {subject} | {_code(change.run_id)} | {change.seq} at "
                f"{_code(change.recorded_at)} | {_code(change.describe())} |"
            )
    if audit.successions:
        lines += ["", f"### {_successions_heading(audit.successions)}", ""]
        for change, claims in _folded(audit.successions):
            also = " (claims " + ", ".join(_code(c) for c in claims) + ")" if claims else ""
            subject = f"{change.scope} {_code(f'{change.contract_id}/{change.subject}')}"
            lines.append(
                f"- {subject}{also} at run {_code(change.run_id)}: {_code(change.succession or '')}"
            )
    if audit.mismatches:
        lines += ["", "Judges served by another model than the contract asked for:", ""]
        lines += [f"- {_code(m.describe())}" for m in audit.mismatches]
    lines += ["", f"### {_trends_heading(audit)}"]
    if audit.trends.claims:
        lines += [
            "",
            f"| claim | runs | last run | {audit.window.earlier()} | recent runs "
            f"| last {_DAYS_SHOWN} days |",
            "|---|---:|---:|---:|---|---|",
        ]
        lines += [_trend_row(trend, audit) for trend in audit.trends.claims]
    if marks := _mark_lines(audit):
        lines += ["", "Judge successions on the run axis:", ""]
        lines += [f"- {_code(line)}" for line in marks]
    return "\n".join(lines) + "\n"


def _mark_lines(audit: HistoryAudit) -> list[str]:
    return [
        f"before run {m.run_id} (claims {', '.join(m.claims)}): {m.label}"
        for m in audit.trends.marks
    ]


def _problems(audit: HistoryAudit) -> list[str]:
    report = audit.integrity
    count = len(report.problems) + report.omitted_problems
    lines = [f"**{count} integrity problem(s).**"]
    if report.first_broken_link is not None:
        lines.append(f"First broken link: {_code(report.first_broken_link.message)}")
    lines += ["", "| kind | seq | problem |", "|---|---:|---|"]
    lines += [
        f"| {p.kind} | {'' if p.seq is None else p.seq} | {_code(p.message)} |"
        for p in report.problems[:_PROBLEMS_SHOWN]
    ]
    if count > _PROBLEMS_SHOWN:
        lines += ["", f"*…and {count - _PROBLEMS_SHOWN} more (see `--format json`).*"]
    return lines


def _shown(audit: HistoryAudit) -> int:
    """How many last runs of a claim the trends show: the window's runs and one."""
    if audit.window.kind == "runs":
        return audit.window.size + 1
    claims = audit.trends.claims
    return 1 + max((len(t.runs) - 1 - _start(t, audit) for t in claims), default=0)


def _start(trend: ClaimTrend, audit: HistoryAudit) -> int:
    """Where the last run's window begins among the claim's runs."""
    return audit.window.start([r.started_at for r in trend.runs], len(trend.runs) - 1)


def _trend_row(trend: ClaimTrend, audit: HistoryAudit) -> str:
    rates = [r.pass_rate for r in trend.runs]
    start = _start(trend, audit)
    prior = rates[start:-1]
    mean = f"{sum(prior) / len(prior):.1%}" if prior else ""
    recent = " ".join(f"{rate:.0%}" for rate in rates[start:])
    days = ", ".join(f"{d.day}: {d.pass_rate:.0%}" for d in trend.days[-_DAYS_SHOWN:])
    return f"| {_code(trend.name)} | {len(rates)} | {rates[-1]:.1%} | {mean} | {recent} | {days} |"


def _alerts_heading(audit: HistoryAudit) -> str:
    count = len(audit.alerts)
    return f"degradation alerts (window {audit.window.describe()}): {count or 'none'}"


def _drift_heading(drift: Sequence[DriftChange]) -> str:
    return f"judge drift: {len(drift) or 'none'}" + (" change(s)" if drift else "")


def _successions_heading(changes: Sequence[DriftChange]) -> str:
    return f"judge successions (recorded, not drift): {len(changes)} change(s)"


def _trends_heading(audit: HistoryAudit) -> str:
    trends = audit.trends
    return (
        f"pass-rate trends: {len(trends.claims)} claim(s) over {len(trends.runs)} run(s) "
        f"and {trends.days} day(s)"
    )


def _where(change: DriftChange) -> str:
    within = ", within the run" if change.within_run else ""
    return f"{change.title} at run {change.run_id} (row {change.seq}, {change.recorded_at}{within})"


def _folded(drift: Sequence[DriftChange]) -> list[tuple[DriftChange, list[str]]]:
    judges = [c for c in drift if c.scope == "judge"]
    folded: list[tuple[DriftChange, list[str]]] = [(c, []) for c in judges]
    index = {_fold_key(c, c.subject): n for n, c in enumerate(judges)}
    for change in drift:
        if change.scope != "claim":
            continue
        n = index.get(_fold_key(change, change.after.judge_name))
        if n is not None and change.before.judge_name == change.after.judge_name:
            folded[n][1].append(change.subject)
        else:
            folded.append((change, []))
    return [(change, sorted(claims)) for change, claims in folded]


def _fold_key(change: DriftChange, judge: str | None) -> tuple[object, ...]:
    return (change.contract_id, change.run_id, judge, change.before.identity, change.after.identity)


def _code(text: str) -> str:
    # Inside a table a pipe ends the cell even in a code span; GitHub unescapes \| there.
    return code_span(text).replace("|", "\\|")
