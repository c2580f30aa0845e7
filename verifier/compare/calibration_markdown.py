"""A calibration as Markdown, sized for a pull-request comment or a review page."""

from __future__ import annotations

from verifier._internal.markdown import code_span
from verifier.compare.agreement import DEFAULT_KAPPA_MARGIN
from verifier.compare.calibration_report import CalibrationReport, ClaimCalibration

__all__ = ["render_markdown"]


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _kappa(c: ClaimCalibration) -> str:
    if c.kappa is None:
        return "undefined"
    ci = c.kappa_ci
    interval = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    return f"{c.kappa:.3f}{interval} ({c.band})"


def _row(c: ClaimCalibration) -> str:
    agreement = "n/a" if c.agreement is None else f"{c.agreement:.1%}"
    needed = "n/a" if c.labels_needed is None else str(c.labels_needed)
    f = c.fails
    return (
        f"| {code_span(c.claim_id)} | {code_span(c.model_id)} | {c.n} | {agreement} | "
        f"{_kappa(c)} | {needed} | {_number(f.precision)} | {_number(f.recall)} | "
        f"{_number(f.f1)} | {_number(c.weighted_kappa)} |"
    )


def _listed(title: str, items: list[str]) -> list[str]:
    """A titled bullet list after a blank line, or nothing when there are no items."""
    if not items:
        return []
    return ["", f"{title} ({len(items)}):", "", *(f"- {item}" for item in items)]


def render_markdown(report: CalibrationReport) -> str:
    """The calibration as Markdown: one table row per claim and judge, then the details.

    Returns:
        The Markdown text, ending in a newline.
    """
    margin = report.claims[0].kappa_margin if report.claims else DEFAULT_KAPPA_MARGIN
    what = f"trial {code_span(report.trial_id)}" if report.trial_id else "run"
    if not report.trial_id:
        what += f" {code_span(report.run_id)}"
    lines = [
        f"## verifier calibrate: {what}",
        "",
        f"Against {code_span(report.labels_path)} ({report.counted()}, sha256 "
        f"{code_span(report.labels_sha256[:12])}).",
    ]
    if report.claims or report.cases is None:
        lines += [
            "",
            "| claim | judge | labelled | agreement | Cohen's kappa [95% CI] "
            f"| labels for ±{margin:g} | fail precision | fail recall "
            "| fail F1 | weighted kappa |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
            *(_row(c) for c in report.claims),
        ]
    for c in report.claims:
        (pp, pf), (fp, ff) = c.confusion.rows()
        lines += [
            "",
            f"### {code_span(c.claim_id)}: judge {code_span(c.model_id)}, prompt "
            f"{code_span(c.prompt_sha[:12])}",
            "",
            "| | judge pass | judge fail |",
            "|---|--:|--:|",
            f"| human pass | {pp} | {pf} |",
            f"| human fail | {fp} | {ff} |",
        ]
        lines += _listed(
            "Disagreements",
            [
                f"{code_span(d.case_id)}: human {d.human}, judge {d.judge}: "
                f"{code_span(d.reasoning[:160]) if d.reasoning else ''}"
                for d in c.disagreements
            ],
        )
    lines += _listed(
        "Unmatched labels",
        [
            f"line {u.line}: case {code_span(u.case_id)} claim {code_span(u.claim_id)}: {u.reason}"
            for u in report.unmatched
        ],
    )
    lines += _case_lines(report)
    lines += [
        "",
        "<sub>Kappa's interval: Fleiss, Cohen & Everitt (1969) large-sample standard "
        "error; labels: cases for a 95% interval of the stated half-width at these shares; "
        "fail precision/recall/F1: the judge's fails against the people's; weighted kappa: "
        "quadratic weights on the scores.</sub>",
    ]
    return "\n".join(lines) + "\n"


def _case_lines(report: CalibrationReport) -> list[str]:
    """The case labels against the case scores, when the file gives any."""
    cases = report.cases
    if cases is None:
        return []
    lines = [
        "",
        f"### Case labels ({cases.labels}) against each case's {cases.case_score}",
        "",
        *(f"- {kind.text()}" for kind in cases.kinds),
    ]
    return lines + _listed(
        "Case labels left out",
        [
            f"line {u.line}: case {code_span(u.case_id)} ({u.kind}): {u.reason}"
            for u in cases.left_out
        ],
    )
