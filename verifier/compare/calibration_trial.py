"""Calibrating a judge trial's candidate: its re-asked verdicts against human labels.

A trial (``verifier judge trial``) asks a judge's stored verdicts again with a
candidate model and keeps every answer, under the candidate's triple, in its sealed
row. Those answers are verdicts like a run's: a label of the same (case, claim) meets
the candidate's verdict as it would meet a run's row, and the calibration is stored
under the candidate's triple, so the successor's calibration exists on the day the
judge switches. A label the trial did not re-ask is reported as unmatched, with how
many labelled cases the trial covered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from verifier.compare.agreement import DEFAULT_KAPPA_MARGIN
from verifier.compare.calibration import (
    JudgeVerdict,
    Scale,
    calibrate_verdicts,
)
from verifier.compare.calibration_claim import StoredWordings
from verifier.compare.calibration_report import CalibrationReport
from verifier.compare.labels import HumanLabel, LabelSet
from verifier.gaps.store import GapStore
from verifier.gaps.trials import TrialRow

__all__ = ["TrialCalibration", "calibrate_trial"]


@dataclass(frozen=True, slots=True)
class TrialCalibration:
    """The calibration of a trial's candidate, and how far the trial covers the labels.

    Attributes:
        covered: Labelled (case, claim) items the trial re-asked.
        labelled: Labelled (case, claim) items in all.
        eligible: The judge's verdicts the trial drew its sample from.
    """

    report: CalibrationReport
    trial: TrialRow
    covered: int
    labelled: int
    eligible: int

    def coverage(self) -> str | None:
        """One line when labelled cases were not re-asked, else ``None``."""
        if self.covered == self.labelled:
            return None
        return (
            f"{self.covered} of {self.labelled} labelled cases were in trial "
            f"{self.trial.trial_id}; re-run the trial with --sample {self.eligible} (every "
            f"verdict of judge {self.trial.judge}) to ask the others, or label cases it asked"
        )


def calibrate_trial(
    store: GapStore,
    trial: TrialRow,
    labels: LabelSet,
    *,
    kappa_margin: float = DEFAULT_KAPPA_MARGIN,
) -> TrialCalibration:
    """Compares the trial's re-asked verdicts with human labels, per claim and per
    triple (the candidate's), as ``calibrate_run`` compares a run's."""
    wordings = StoredWordings(store)
    rows: dict[tuple[str, str], JudgeVerdict] = {}
    for kept in trial.verdicts:
        verdict = _candidate_verdict(kept, trial.candidate_model)
        wording = wordings.text(verdict.contract_sha256, verdict.claim_id)
        rows[(verdict.case_id, verdict.claim_id)] = replace(verdict, wording=wording)

    def why(label: HumanLabel, row: JudgeVerdict | None) -> str | None:
        if row is not None:
            return None
        return f"trial {trial.trial_id} did not re-ask this case and claim"

    report = calibrate_verdicts(
        f"trial-{trial.trial_id}",
        labels,
        rows,
        why,
        kappa_margin=kappa_margin,
        trial_id=trial.trial_id,
    )
    items = {(label.case_id, label.claim_id) for label in labels.labels}
    return TrialCalibration(
        report=report,
        trial=trial,
        covered=len(items & rows.keys()),
        labelled=len(items),
        eligible=int(trial.figures.get("eligible") or trial.requested),
    )


def _candidate_verdict(kept: dict[str, Any], model: str) -> JudgeVerdict:
    """A re-asked verdict of a trial's row as a calibration reads a judge row."""
    raw = kept.get("scale")
    scale = None
    score: float = 1.0 if kept["new"] == "pass" else 0.0
    if isinstance(raw, dict):
        scale = Scale(float(raw["min"]), float(raw["max"]), float(raw["pass_at"]))
        score = (float(kept["new_score"]) - scale.min) / (scale.max - scale.min)
    return JudgeVerdict(
        contract_id=str(kept.get("contract_id") or ""),
        case_id=str(kept["case_id"]),
        claim_id=str(kept["claim_id"]),
        status=str(kept["new"]),
        score=score,
        reason=str(kept.get("new_reason") or ""),
        triple=kept.get("new_triple"),
        requested_model=model,
        scale=scale,
        contract_sha256=str(kept.get("contract_sha256") or ""),
    )
