"""Stored runs for the HTML report tests, written through a store's own API.

``plant_hostile_run`` stores a run whose case ids, reasons and evidence carry markup
an LLM could have written, to show that none of it reaches a page as markup.
"""

from __future__ import annotations

from typing import Any

from tests.analyses._history import judge_evidence
from tests.gaps._support import begin, draft
from verifier.gaps.store import GapStore

INJECTED_REASON = "<script>window.__injected = 'reason'</script>"
INJECTED_CASE = '<img src="x" onerror="window.__injected = \'case\'">'
INJECTED_EVIDENCE = "</pre></details><script>window.__injected = 'evidence'</script>"

# claim -> statuses of its results, one per case c0, c1, ...
STATUSES = {
    "cites_sources": ["pass", "fail", "pass", "fail"],
    "short_enough": ["pass", "pass", "pass", "pass"],
    "formal_tone": ["pass", "fail", "error", "skipped"],
}
JUDGED = {"formal_tone"}
NOT_PASSED = 5
"""Results above that are not passes."""


def plant_run(
    store: GapStore,
    run_id: str = "run-1",
    *,
    started_at: str = "2026-11-25T10:00:00Z",
    hostile: bool = False,
    finished: bool = True,
) -> None:
    """One run of four cases and the three claims of ``STATUSES``.

    With ``hostile``, case c1 is named ``INJECTED_CASE``, its reasons are
    ``INJECTED_REASON`` and its evidence quotes ``INJECTED_EVIDENCE``.
    """
    begin(store, run_id, started_at=started_at)
    drafts = []
    for claim_id, statuses in STATUSES.items():
        for n, status in enumerate(statuses):
            case_id = INJECTED_CASE if hostile and n == 1 else f"c{n}"
            evidence: dict[str, Any] = {"span": [0, n]}
            if claim_id in JUDGED and status in ("pass", "fail"):
                evidence = judge_evidence(judge_name="strict")
            if hostile and n == 1:
                evidence["quote"] = INJECTED_EVIDENCE
            drafts.append(
                draft(
                    len(drafts) + 1,
                    run_id,
                    row_id=f"{run_id}:{n}:{claim_id}",
                    case_id=case_id,
                    claim_id=claim_id,
                    kind="judge" if claim_id in JUDGED else "rubric",
                    status=status,
                    score={"pass": 1.0, "fail": 0.0}.get(status),
                    reason=INJECTED_REASON
                    if hostile and n == 1
                    else f"{claim_id} {status} on c{n}",
                    evidence=evidence,
                    recorded_at=started_at,
                )
            )
    store.append(drafts)
    if finished:
        store.finish_run(
            run_id,
            status="finished",
            finished_at=started_at,
            summary={
                "total_cases": 4,
                "passed_cases": 1,
                "failed_cases": 3,
                "average_score": 0.583333,
                "threshold": 1.0,
            },
        )
