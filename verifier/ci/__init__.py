"""What ``verifier run`` gives a CI system besides its report.

- :mod:`verifier.ci.annotations`: GitHub workflow commands (``::error file=...``) that
  put one annotation per failing claim on the claim's line of the contract;
- :mod:`verifier.ci.step_summary`: the Markdown summary appended to
  ``$GITHUB_STEP_SUMMARY``;
- :mod:`verifier.ci.pr_comment`: a pull-request comment body with the assertion
  breakdown and what changed against a baseline run (:mod:`verifier.ci.baseline`).

Each is a report sink (``add_case`` / ``finish``), so the runner feeds it as it feeds
the report; none keeps per-case data beyond a bounded sample, except the baseline's
failing results that a comparison needs.
"""

from verifier.ci.annotations import AnnotationWriter, claim_positions
from verifier.ci.baseline import BaselineError, BaselineRun, load_baseline
from verifier.ci.from_store import StoredRunError, replay_stored_run
from verifier.ci.pr_comment import PrCommentWriter, comment_marker
from verifier.ci.step_summary import StepSummaryWriter

__all__ = [
    "AnnotationWriter",
    "BaselineError",
    "BaselineRun",
    "PrCommentWriter",
    "StepSummaryWriter",
    "StoredRunError",
    "claim_positions",
    "comment_marker",
    "load_baseline",
    "replay_stored_run",
]
