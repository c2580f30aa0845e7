"""Judge trials: does a successor model judge like a pinned judge's (ADR 0073)?

``trial_judge`` asks a stratified sample of a judge's stored pass/fail verdicts and
scores on a scale again with a candidate model, reusing how a resample re-asks stored verdicts
(``verifier.recheck``), and measures the agreement with the statistics ``calibrate``
and ``compare`` use (``verifier.compare``); the decision rule is stated before the
calls and kept with the outcome in the store's sealed ``trials`` table.
``switch_judge`` records the succession a trial measured (ADR 0074).
"""

from verifier.trial.engine import (
    Candidate,
    NoJudgeKey,
    NoVerdicts,
    TrialInterrupted,
    TrialResumeError,
    trial_judge,
)
from verifier.trial.figures import Figures, figures_of
from verifier.trial.report import TrialReport, TrialVerdict
from verifier.trial.rule import DEFAULT_MAX_SHIFT, DEFAULT_MIN_KAPPA, TrialRule
from verifier.trial.switch import Switched, SwitchRefused, switch_judge

__all__ = [
    "DEFAULT_MAX_SHIFT",
    "DEFAULT_MIN_KAPPA",
    "Candidate",
    "Figures",
    "NoJudgeKey",
    "NoVerdicts",
    "SwitchRefused",
    "Switched",
    "TrialInterrupted",
    "TrialReport",
    "TrialResumeError",
    "TrialRule",
    "TrialVerdict",
    "figures_of",
    "switch_judge",
    "trial_judge",
]
