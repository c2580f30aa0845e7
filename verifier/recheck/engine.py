"""Re-evaluating stored verdicts from the store alone, one case at a time.

Rows are streamed in seq order; the rows of one case are consecutive (a run appends a
case's rows together), so each case's content is read, verified and parsed once, its
claims re-evaluated together (gates included), and dropped before the next case:
memory stays flat whatever the size of the store. Rows, runs, contracts and contents
are read in one snapshot of the store (``GapStore.snapshot``), whose head the report
names: cases other processes write meanwhile are not part of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import orjson

from verifier._internal.gc import gc_frozen
from verifier.contract.schema_files import RUN_OPTION as SCHEMA_FILES_OPTION
from verifier.contract.selection import judged_claims
from verifier.gaps.content import content_sha256
from verifier.gaps.record_seals import purged_of
from verifier.gaps.store import GapStore, StoredRow
from verifier.judge.phase import NO_RECORDING, REJECTED_ENTRY
from verifier.recheck.contents import CaseContent, NoContent, case_content
from verifier.recheck.plans import PlanUnavailable, StoredPlan, StoredPlans, touched
from verifier.recheck.report import Difference, RecheckReport, TamperedContent
from verifier.results import ClaimResult

__all__ = ["recheck_store"]

_TRIPLE = ("model_id", "prompt_sha", "sampling_sha")

_Rows = list[tuple[StoredRow, dict[str, Any]]]


def recheck_store(
    store: GapStore, *, target: str, run_id: str | None = None, max_listed: int = 1000
) -> RecheckReport:
    """Re-evaluates every stored verdict (of one run, if given) and counts the outcome.

    Rubric and deterministic comparative rows are re-evaluated from the stored content
    and contract; judge rows (and pairwise comparisons) from the store's judge cache or
    the recordings beside the stored contract, never by a call.

    Args:
        store: The store to re-check.
        target: The store as ``--store`` names it (its judge cache is opened from it).
        run_id: Only the rows of this run.
        max_listed: Differing rows listed one by one (all are counted).
    """
    report = RecheckReport(store.location, run_id, max_listed=max_listed)
    with store.snapshot():
        head = store.head()
        report.head = head.seal_hash if head is not None else None
        plans = StoredPlans(store, target)
        purged = purged_of(store)
        # Every row parsed makes a few dicts: as in a run, the collector is kept off
        # the objects loaded before (see ``gc_frozen``), about a fifth of the time.
        with gc_frozen():
            try:
                _walk(store, run_id, plans, report, purged)
            finally:
                plans.close()
        if run_id is None:
            _verify_unreferenced(store, report)
    return report


def _verify_unreferenced(store: GapStore, report: RecheckReport) -> None:
    # A content no row refers to any more (its rows were cut) can still be edited; a
    # re-check of the whole store verifies every stored content, not only those read.
    for sha, body in store.iter_contents():
        if sha in report.tampered:
            continue
        actual = content_sha256(body)
        if actual != sha:
            report.tampered[sha] = TamperedContent(sha, actual)


def _walk(
    store: GapStore,
    run_id: str | None,
    plans: StoredPlans,
    report: RecheckReport,
    purged: Mapping[str, tuple[int, str]],
) -> None:
    options: dict[str, Mapping[str, Any] | None] = {}
    rows: _Rows = []
    claims: set[str] = set()
    case: tuple[Any, ...] = ()
    for row in store.iter_rows(run_id):
        report.rows += 1
        try:
            body = orjson.loads(row.body)
        except orjson.JSONDecodeError:
            body = None
        if not isinstance(body, dict):
            report.skip("unreadable_row", f"seq {row.seq}")
            continue
        # A case's rows share their run, case, content and contract; a claim seen
        # again starts another case (the same case id on another line).
        this = (row.run_id, row.case_id, body.get("content_sha256"), body.get("contract_sha256"))
        if this != case or row.claim_id in claims:
            if rows:
                _recheck_case(rows, store, plans, options, report, purged)
            rows, claims, case = [], set(), this
        rows.append((row, body))
        claims.add(row.claim_id)
    if rows:
        _recheck_case(rows, store, plans, options, report, purged)


def _recheck_case(
    rows: _Rows,
    store: GapStore,
    plans: StoredPlans,
    options: dict[str, Mapping[str, Any] | None],
    report: RecheckReport,
    purged: Mapping[str, tuple[int, str]],
) -> None:
    own = [(row, body) for row, body in rows if body.get("kind") != "imported"]
    if len(own) < len(rows):
        report.skip("imported", f"seq {rows[0][0].seq}", len(rows) - len(own))
    if not own:
        return
    first = own[0][1]
    run_id = str(first.get("run_id"))
    if run_id not in options:
        run = store.run(run_id)
        options[run_id] = run.options if run is not None else None
    content = case_content(store, first, options[run_id], purged)
    if isinstance(content, NoContent):
        _no_content(content, len(own), report)
        return
    plan = plans.get(str(first.get("contract_sha256")))
    if isinstance(plan, PlanUnavailable):
        report.skip(plan.why, plan.detail, len(own))
        return
    known = [(row, body) for row, body in own if body.get("claim_id") in plan.claims]
    if len(known) < len(own):
        unknown = next(body for _, body in own if body.get("claim_id") not in plan.claims)
        report.skip("unknown_claim", f"claim {unknown.get('claim_id')}", len(own) - len(known))
    if not known:
        return
    recorded = options[run_id] or {}
    if recorded.get("judges") == "off":
        # The run checked no judged claim: its skipped rows are not verdicts to re-ask.
        skipped = set(judged_claims(plan.loaded))
        off = [(row, body) for row, body in known if body.get("claim_id") in skipped]
        if off:
            report.skip("judges_off", f"run {run_id}", len(off))
            known = [(row, body) for row, body in known if body.get("claim_id") not in skipped]
    case_id = str(first.get("case_id"))
    results = plan.results(case_id, content.case, [str(b["claim_id"]) for _, b in known])
    read = recorded.get(SCHEMA_FILES_OPTION)
    read = read if isinstance(read, Mapping) else None
    unanswered = _unanswered({str(b["claim_id"]): b for _, b in known}, plan)
    for row, body in known:
        _compare(row, body, plan, content, results, report, read, unanswered)


def _unanswered(stored: Mapping[str, Mapping[str, Any]], plan: StoredPlan) -> frozenset[str]:
    """The claims of a case the run had no answer for: stored as error, or skipped
    while waiting for a claim it had no answer for (a gate that errored)."""
    memo: dict[str, bool] = {}

    def unanswered(claim_id: str) -> bool:
        if claim_id not in memo:
            memo[claim_id] = False  # a gate cycle cannot load; this only stops recursion
            body = stored.get(claim_id)
            status = body.get("status") if body is not None else None
            gates = plan.claims[claim_id].after if claim_id in plan.claims else ()
            memo[claim_id] = status == "error" or (
                status == "skipped" and any(unanswered(g) for g in gates)
            )
        return memo[claim_id]

    return frozenset(claim_id for claim_id in stored if unanswered(claim_id))


def _no_content(content: NoContent, rows: int, report: RecheckReport) -> None:
    report.skip(content.why, content.detail, rows)
    if content.tampered is not None:
        sha, actual = content.tampered
        report.tampered.setdefault(sha, TamperedContent(sha, actual)).rows += rows


def _compare(
    row: StoredRow,
    body: Mapping[str, Any],
    plan: StoredPlan,
    content: CaseContent,
    results: Mapping[str, ClaimResult],
    report: RecheckReport,
    schema_files_read: Mapping[str, Any] | None,
    unanswered: frozenset[str],
) -> None:
    claim_id = str(body["claim_id"])
    if plan.missing_files:
        missing = plan.missing_file(claim_id)
        if missing is not None:
            report.skip("schema_file_missing", missing)
            return
    changed = plan.changed_file(claim_id, schema_files_read)
    if changed is not None:
        # The verdict was right for the file the run read: not a difference to report.
        report.skip("schema_file_changed", changed)
        return
    if content.withheld:
        path = touched(plan.reads(claim_id, content.case), content.withheld)
        if path is not None:
            why = content.withheld[path].get("why", "withheld")
            report.skip("content_withheld", f"claim {claim_id} reads {path} ({why})")
            return
    result = results[claim_id]
    judged = claim_id in plan.judged
    if judged and plan.judge_problem is not None:
        report.skip("judge_unavailable", plan.judge_problem)
        return
    if judged and result.reason.startswith(REJECTED_ENTRY):
        report.cache_tampered(f"seq {row.seq} run {row.run_id}: {result.reason}")
        return
    if judged and result.reason.startswith(NO_RECORDING):
        report.skip("no_cache_entry", f"claim {claim_id} on case {row.case_id}")
        return
    changed_prompt = _changed_prompt(body, result) if judged else None
    if changed_prompt is not None:
        # Another question than the run asked (a template edited, or a release that
        # renders requests anew): its answer neither confirms nor refutes the verdict.
        report.skip("judge_prompt_changed", f"claim {claim_id}: {changed_prompt}")
        return
    what = _differs(body, result, judged)
    if what is None:
        report.rechecked += 1
        report.agree += 1
        return
    difference = Difference(
        seq=row.seq,
        run_id=row.run_id,
        case_id=row.case_id,
        claim_id=claim_id,
        stored=f"{body.get('status')} ({_score(body.get('score'))})",
        rechecked=f"{result.status} ({_score(result.score)})",
        what=what,
        reason=result.reason,
    )
    if claim_id in unanswered and result.status != "error":
        # The run had no answer (a replay miss, a timeout, a gate that errored) and
        # the store holds one now: nothing stored is contradicted.
        stored_reason = str(body.get("reason") or "")
        report.add_answerable(replace(difference, what=f"then: {stored_reason}"))
    elif body.get("status") in ("pass", "fail") and result.status == "error":
        report.add_unconfirmed(difference)
    else:
        report.add_difference(difference)


def _differs(body: Mapping[str, Any], result: ClaimResult, judged: bool) -> str | None:
    if body.get("status") != result.status:
        return "status"
    if body.get("score") != result.score and not _rounded_alike(body.get("score"), result.score):
        return "score"
    if judged and result.status in ("pass", "fail"):
        stored = body.get("evidence", {}).get("judge") or {}
        again = result.evidence.get("judge") or {}
        parts = [p for p in _TRIPLE if stored.get(p) != again.get(p)]
        if parts:
            return "judge triple: " + ", ".join(parts)
    return None


def _rounded_alike(stored: Any, again: float | None) -> bool:
    """Whether a stored score is the rechecked one as earlier releases stored ratios:
    rounded to 6 decimals (ADR 0062). Only a score that has at most 6 decimals is read
    so, so a score stored at full precision must match exactly."""
    if isinstance(stored, bool) or not isinstance(stored, float) or again is None:
        return False
    return round(stored, 6) == stored and round(again, 6) == stored


def _changed_prompt(body: Mapping[str, Any], result: ClaimResult) -> str | None:
    """``prompt_sha X stored, Y now`` when the rebuilt request has another prompt_sha."""
    stored = (body.get("evidence", {}).get("judge") or {}).get("prompt_sha")
    again = (result.evidence.get("judge") or {}).get("prompt_sha")
    if stored and again and stored != again:
        return f"prompt_sha {str(stored)[:12]} stored, {str(again)[:12]} now"
    return None


def _score(score: Any) -> str:
    return "no score" if score is None else f"score {score}"
