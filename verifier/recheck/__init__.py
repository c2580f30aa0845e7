"""Re-checking stored verdicts from the store alone (``verifier audit --recheck``).

Every rubric and deterministic comparative row is re-evaluated from its case's stored
content and the stored contract; every judge row is looked up again in the judge
cache or the recordings under the same request, never called. A row whose stored
verdict is not what the re-check gives is reported; a stored error the store can
answer now is listed apart and is not a difference, while a stored pass or fail that
rechecks to an error is (ADR 0061); a row that cannot be re-checked is counted with
why (see ``WHY``), never as agreeing.
"""

from verifier.recheck.engine import recheck_store
from verifier.recheck.report import WHY, Difference, RecheckReport, render_recheck

__all__ = ["WHY", "Difference", "RecheckReport", "recheck_store", "render_recheck"]
