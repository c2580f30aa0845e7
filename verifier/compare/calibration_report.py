"""The result of calibrating a judge against human labels, as JSON and as text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier._internal.canonical import sha256_hex
from verifier.compare.agreement import (
    DEFAULT_KAPPA_MARGIN,
    FailDetection,
    fail_detection,
    kappa_interval,
    labels_for_kappa_margin,
)
from verifier.compare.calibrate import Confusion, Correlation, KappaBand
from verifier.compare.case_labels import CaseCalibration

__all__ = [
    "CalibrationReport",
    "ClaimCalibration",
    "Disagreement",
    "Unmatched",
    "fails_line",
    "kappa_precision",
]


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A label that has no usable judge verdict to be compared with, and why."""

    line: int
    case_id: str
    claim_id: str
    rater: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "case_id": self.case_id,
            "claim_id": self.claim_id,
            "rater": self.rater or None,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Disagreement:
    """A case where the people's verdict and the judge's differ."""

    case_id: str
    claim_id: str
    human: str
    judge: str
    reasoning: str

    def as_dict(self) -> dict[str, str]:
        return {
            "case_id": self.case_id,
            "claim_id": self.claim_id,
            "human": self.human,
            "judge": self.judge,
            "judge_reasoning": self.reasoning,
        }


@dataclass(frozen=True, slots=True)
class ClaimCalibration:
    """Agreement of one judge (one stability triple) with people on one claim.

    Attributes:
        n: Labelled cases with a pass/fail on both sides (the kappa's sample).
        agreement: Share of those cases where both sides agree (0 to 1).
        kappa: Cohen's kappa, ``None`` when undefined.
        band: Landis & Koch name of ``kappa``.
        spearman, pearson: Correlations of human scores with the judge's scores.
        raters: The distinct raters of the claim (an unnamed rater is ``""``).
        alpha: Krippendorff's alpha among the raters, and with the judge as one
            more rater, by level (``nominal`` for verdicts, ``interval`` for scores);
            only when several raters labelled the claim.
        ties: Cases whose raters split evenly, left out of the kappa.
        unlabelled: The claim's judge verdicts under this triple that no one labelled.
        kappa_margin: The half-width of kappa's 95% interval that ``labels_needed``
            plans for.
        weighted_kappa: Cohen's weighted kappa (quadratic weights) of the people's
            scores against the judge's, on the ``scored`` cases.
        claim_wording: The claim's wording the run judged (``calibration_claim``:
            canonical JSON of its judged parts); ``None`` when the store does not
            hold the run's contract.
    """

    contract_id: str
    claim_id: str
    model_id: str
    requested_model: str
    prompt_sha: str
    sampling_sha: str
    n: int
    confusion: Confusion
    agreement: float | None
    kappa: float | None
    band: KappaBand | None
    scored: int
    spearman: Correlation | None
    pearson: Correlation | None
    raters: tuple[str, ...]
    alpha: dict[str, float | None]
    ties: tuple[str, ...]
    unlabelled: int
    disagreements: tuple[Disagreement, ...]
    kappa_margin: float = DEFAULT_KAPPA_MARGIN
    weighted_kappa: float | None = None
    claim_wording: str | None = None

    @property
    def claim_sha(self) -> str | None:
        """The SHA-256 of ``claim_wording``."""
        return None if self.claim_wording is None else sha256_hex(self.claim_wording)

    @property
    def kappa_ci(self) -> tuple[float, float] | None:
        """Kappa's 95% interval (``agreement.kappa_interval``)."""
        return kappa_interval(self.confusion)

    @property
    def labels_needed(self) -> int | None:
        """Labelled cases for a 95% interval of kappa +- ``kappa_margin``."""
        return labels_for_kappa_margin(self.confusion, self.kappa_margin)

    @property
    def fails(self) -> FailDetection:
        """Precision, recall and F1 of the judge's fails against the people's."""
        return fail_detection(self.confusion)

    @property
    def triple(self) -> dict[str, str]:
        return {
            "model_id": self.model_id,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
        }

    def statistics(self) -> dict[str, Any]:
        """The numbers of the calibration, without the disagreements' text."""
        return {
            "n": self.n,
            "agreement": self.agreement,
            "kappa": self.kappa,
            "kappa_band": self.band,
            "kappa_ci95": list(self.kappa_ci) if self.kappa_ci else None,
            "labels_needed": {"margin": self.kappa_margin, "labels": self.labels_needed},
            "fails": self.fails.as_dict(),
            "confusion": self.confusion.as_dict(),
            "scored": self.scored,
            "spearman": self.spearman.as_dict() if self.spearman else None,
            "pearson": self.pearson.as_dict() if self.pearson else None,
            "weighted_kappa": (
                None
                if self.weighted_kappa is None
                else {"weights": "quadratic", "value": self.weighted_kappa}
            ),
            "raters": list(self.raters),
            "krippendorff_alpha": dict(self.alpha),
            "ties": list(self.ties),
            "unlabelled": self.unlabelled,
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "contract_id": self.contract_id,
            "claim_id": self.claim_id,
            "judge": self.triple,
            "claim_sha": self.claim_sha,
            "requested_model": self.requested_model,
            **self.statistics(),
            "disagreements": [d.as_dict() for d in self.disagreements],
        }


@dataclass(frozen=True, slots=True)
class CalibrationReport:
    """Every claim's calibration in one run against one labels file."""

    run_id: str
    labels_path: str
    labels_sha256: str
    labels: int
    claims: tuple[ClaimCalibration, ...]
    unmatched: tuple[Unmatched, ...]
    trial_id: str | None = None
    """The judge trial whose re-asked verdicts were calibrated (``None``: a run's)."""
    cases: CaseCalibration | None = None
    """The case labels against the run's case scores (``None``: the file gives none)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            **({"trial_id": self.trial_id} if self.trial_id else {}),
            "labels": {
                "path": self.labels_path,
                "sha256": self.labels_sha256,
                "count": self.labels,
            },
            "claims": [c.as_dict() for c in self.claims],
            "unmatched": [u.as_dict() for u in self.unmatched],
            **({"case_labels": self.cases.as_dict()} if self.cases else {}),
        }

    def counted(self) -> str:
        """``24 labels``, or ``24 claim labels, 10 case labels`` when the file gives both
        kinds."""
        if self.cases is None:
            return f"{self.labels} labels"
        return f"{self.labels} claim labels, {self.cases.labels} case labels"

    def render_text(self) -> str:
        what = f"trial {self.trial_id}" if self.trial_id else f"run {self.run_id}"
        lines = [
            f"calibration of {what} against {self.labels_path} "
            f"({self.counted()}, sha256 {self.labels_sha256[:12]})"
        ]
        for claim in self.claims:
            lines += ["", *_claim_text(claim)]
        if self.unmatched:
            lines += ["", f"unmatched labels ({len(self.unmatched)}):"]
            lines += [
                f"  {self.labels_path}:{u.line}: case {u.case_id} claim {u.claim_id}: {u.reason}"
                for u in self.unmatched
            ]
        if self.cases:
            lines += ["", *self.cases.text_lines(self.labels_path)]
        return "\n".join(lines)


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _claim_text(c: ClaimCalibration) -> list[str]:
    kappa = (
        f"{_number(c.kappa)} ({c.band})" if c.kappa is not None else "undefined (one verdict only)"
    )
    agreement = "n/a" if c.agreement is None else f"{c.agreement:.1%}"
    (pp, pf), (fp, ff) = c.confusion.rows()
    w = max(len("judge pass"), *(len(str(v)) for v in (pp, pf, fp, ff))) + 2
    lines = [
        f"claim {c.claim_id}: judge {c.model_id} (requested {c.requested_model}), "
        f"prompt {c.prompt_sha[:12]}, sampling {c.sampling_sha[:12]}",
        f"  labelled cases {c.n}, agreement {agreement}, Cohen's kappa {kappa}",
        f"  {kappa_precision(c)}",
        f"  {'':12}{'judge pass':>{w}}{'judge fail':>{w}}",
        f"  {'human pass':12}{pp:>{w}}{pf:>{w}}",
        f"  {'human fail':12}{fp:>{w}}{ff:>{w}}",
        f"  {fails_line(c)}",
    ]
    if c.scored:
        lines.append(
            f"  scores on {c.scored} cases: Spearman {_corr(c.spearman)}, "
            f"Pearson {_corr(c.pearson)}, weighted kappa (quadratic) "
            f"{_number(c.weighted_kappa)}"
        )
    if c.alpha:
        parts = ", ".join(f"{k} {_number(v)}" for k, v in c.alpha.items())
        lines.append(f"  {len(c.raters)} raters, Krippendorff's alpha: {parts}")
    if c.ties:
        cases = "case" if len(c.ties) == 1 else "cases"
        lines.append(f"  raters split evenly on {len(c.ties)} {cases}: {', '.join(c.ties)}")
    if c.unlabelled:
        lines.append(f"  judge verdicts without a label: {c.unlabelled}")
    if c.disagreements:
        lines.append(f"  disagreements ({len(c.disagreements)}):")
        lines += [
            f"    {d.case_id}: human {d.human}, judge {d.judge}: {_short(d.reasoning)}"
            for d in c.disagreements
        ]
    return lines


def kappa_precision(c: ClaimCalibration) -> str:
    """Kappa's interval and the labels a 95% interval of +-margin needs, in one line."""
    ci = c.kappa_ci
    interval = "n/a" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
    needed = "n/a" if c.labels_needed is None else str(c.labels_needed)
    if c.kappa is not None and ci is None:
        interval += (
            " (one side gave the same verdict on every labelled case: the large-sample "
            "interval needs both verdicts from each)"
            if c.disagreements
            else " (no disagreement: the large-sample interval needs one)"
        )
    return f"kappa 95% CI {interval}; labels for a 95% CI of ±{c.kappa_margin:g}: {needed}"


def fails_line(c: ClaimCalibration) -> str:
    """Precision, recall and F1 of the judge's fails, in one line."""
    f = c.fails
    return (
        f"judge fails against human fails: precision {_number(f.precision)}, "
        f"recall {_number(f.recall)}, F1 {_number(f.f1)}"
    )


def _corr(value: Correlation | None) -> str:
    return "n/a" if value is None else f"{value.r:.3f} (p={value.p_value:.3g})"


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
