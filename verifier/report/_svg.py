"""Inline SVG charts for the HTML reports, drawn in Python: no script, no external file.

Every text that comes from a store (claim ids, run ids, alert descriptions) goes
through ``Markup.format``, which escapes it, so a chart cannot carry markup of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from verifier.results import ClaimTally, rate_text

__all__ = ["STATUS_COLOURS", "AxisMark", "LinePoint", "bar_chart", "sparkline"]

STATUS_COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "error": "#ef6c00", "skipped": "#9e9e9e"}
_LABEL_CHARS = 34

_BAR_WIDTH, _BAR_LEFT, _BAR_ROW = 440, 240, 24


def bar_chart(tallies: Sequence[tuple[str, ClaimTally]]) -> Markup:
    """A horizontal bar per claim: its results split into pass, fail, error and skipped,
    the pass rate written beside it. Each bar is one ``g.claim-bar`` with ``data-claim``."""
    height = _BAR_ROW * len(tallies) + 8
    width = _BAR_LEFT + _BAR_WIDTH + 70
    parts = [
        Markup(
            '<svg class="chart pass-rates" role="img" aria-label="pass rate per claim" '
            'xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        ).format(w=width, h=height)
    ]
    for n, (claim_id, tally) in enumerate(tallies):
        y = 4 + n * _BAR_ROW
        parts.append(
            Markup('<g class="claim-bar" data-claim="{}"><title>{}: {}</title>').format(
                claim_id, claim_id, _tally_text(tally)
            )
        )
        parts.append(
            Markup('<text x="{}" y="{}" text-anchor="end">{}</text>').format(
                _BAR_LEFT - 8, y + 15, _label(claim_id)
            )
        )
        x = float(_BAR_LEFT)
        for status, count in _segments(tally):
            if not count:
                continue
            w = _BAR_WIDTH * count / tally.applicable
            parts.append(
                Markup(
                    '<rect class="seg-{}" x="{:.2f}" y="{}" width="{:.2f}" height="18" fill="{}"/>'
                ).format(status, x, y + 2, w, STATUS_COLOURS[status])
            )
            x += w
        if not tally.applicable:
            parts.append(
                Markup('<rect x="{}" y="{}" width="{}" height="18" fill="#eee"/>').format(
                    _BAR_LEFT, y + 2, _BAR_WIDTH
                )
            )
        parts.append(
            Markup('<text class="rate" x="{}" y="{}">{}</text></g>').format(
                _BAR_LEFT + _BAR_WIDTH + 6, y + 15, rate_text(tally.pass_rate)
            )
        )
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


@dataclass(frozen=True, slots=True)
class LinePoint:
    """One point of a line plot: where on the x axis (0-based slot), the rate, a label."""

    slot: int
    rate: float
    label: str
    alert: str | None = None
    """When set, the point is marked as an alert and this text is its tooltip."""


@dataclass(frozen=True, slots=True)
class AxisMark:
    """A mark between two x slots: something changed before the point at ``slot``."""

    slot: int
    label: str
    title: str
    """The mark's tooltip."""
    run_id: str


_SPARK_W, _SPARK_H, _SPARK_PAD = 240, 52, 6


def sparkline(
    points: Sequence[LinePoint],
    *,
    slots: int,
    claim: str,
    axis: str,
    marks: Sequence[AxisMark] = (),
) -> Markup:
    """A small pass-rate line (0 to 1) over ``slots`` x positions, one circle per point
    (its label and rate as tooltip) and a red ring on each alert; faint lines mark 0,
    50 and 100 %, and a dashed upright line with a tick on the axis stands halfway
    before each of ``marks``' slots. The axis is labelled once, by the table the plots
    sit in."""
    inner_w, inner_h = _SPARK_W - 2 * _SPARK_PAD, _SPARK_H - 2 * _SPARK_PAD

    def x_of(slot: float) -> float:
        return _SPARK_PAD + (inner_w * slot / (slots - 1) if slots > 1 else inner_w / 2)

    def at(point: LinePoint) -> tuple[float, float]:
        return x_of(point.slot), _SPARK_PAD + inner_h * (1 - point.rate)

    parts = [
        Markup(
            '<svg class="chart trend-plot" data-claim="{c}" data-axis="{a}" role="img" '
            'aria-label="pass rate of {c} per {a}" xmlns="http://www.w3.org/2000/svg" '
            'width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
        ).format(c=claim, a=axis, w=_SPARK_W, h=_SPARK_H)
    ]
    for rate in (0.0, 0.5, 1.0):
        y = _SPARK_PAD + inner_h * (1 - rate)
        parts.append(
            Markup('<line class="grid" x1="{l}" x2="{r}" y1="{y:.1f}" y2="{y:.1f}"/>').format(
                l=_SPARK_PAD, r=_SPARK_W - _SPARK_PAD, y=y
            )
        )
    parts += [_axis_mark(mark, x_of(max(mark.slot - 0.5, 0))) for mark in marks]
    coords = [at(p) for p in points]
    parts.append(
        Markup('<polyline class="rate-line" points="{}"/>').format(
            " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        )
    )
    for point, (x, y) in zip(points, coords, strict=True):
        parts.append(
            Markup(
                '<circle class="point" cx="{:.1f}" cy="{:.1f}" r="2.5"><title>{}: {:.3f}</title>'
                "</circle>"
            ).format(x, y, point.label, point.rate)
        )
        if point.alert is not None:
            parts.append(
                Markup(
                    '<circle class="alert-marker" cx="{:.1f}" cy="{:.1f}" r="6">'
                    "<title>{}</title></circle>"
                ).format(x, y, point.alert)
            )
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


def _axis_mark(mark: AxisMark, x: float) -> Markup:
    return Markup(
        '<g class="succession-marker" data-run="{r}"><title>{t}</title>'
        '<line class="succession" x1="{x:.1f}" x2="{x:.1f}" y1="0" y2="{h}"/>'
        '<path class="succession-tick" d="M{x:.1f},{h} l-4,-6 h8 z"/></g>'
    ).format(r=mark.run_id, t=mark.title, x=x, h=_SPARK_H)


def _segments(tally: ClaimTally) -> tuple[tuple[str, int], ...]:
    return (
        ("pass", tally.passed),
        ("fail", tally.failed),
        ("error", tally.errors),
        # Results of cases the claim did not apply to are no part of its bar.
        ("skipped", tally.skipped - tally.not_applicable),
    )


def _tally_text(tally: ClaimTally) -> str:
    return (
        f"{tally.passed} pass, {tally.failed} fail, {tally.errors} error, "
        f"{tally.skipped_text} skipped ({rate_text(tally.pass_rate)} pass)"
    )


def _label(text: str) -> str:
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"
