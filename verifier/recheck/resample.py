"""Test-retest agreement: stored judge verdicts asked again under the same triple.

``verifier audit --resample N --run RUN`` draws N of a run's judge verdicts (pass or
fail, with a complete stability triple) with a stated seed, rebuilds each one's
request from the stored contract and the stored case content (exactly as the run
built it: same template, same sampling, same grouping), asks the judge again, never
from the cache, and counts how often it says the same. A verdict whose answer comes
back under another triple (another served model, say) is not a retest of it and is
counted apart. Each retest is kept as a row of the store's ``resamples`` table
(ADR 0031).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from verifier.contract.load import LoadedContract
from verifier.engine.plan import Plan
from verifier.errors import VerifierError
from verifier.gaps.resamples import ResampleRow, TripleAgreement
from verifier.gaps.row import TRIPLE_PARTS
from verifier.gaps.store import GapStore, StoredRow
from verifier.judge.phase import JudgePhase
from verifier.judge.setup import make_judge_phase, unset_judge_key
from verifier.llm.limits import CallLimits
from verifier.recheck.contents import NoContent, case_content
from verifier.recheck.plans import PlanUnavailable, StoredPlan, StoredPlans
from verifier.results import ClaimResult

__all__ = [
    "NoJudgeKey",
    "ResampleReport",
    "TripleAgreement",
    "judge_triple",
    "resample_run",
    "row_body",
]


class NoJudgeKey(VerifierError):
    """A judge of the run's contract cannot be called: its API key is not set."""


_JUDGED = frozenset({"judge", "comparative"})


@dataclass(slots=True)
class ResampleReport:
    """What a resample found.

    Attributes:
        eligible: The run's verdicts that could be drawn.
        triples: Agreement per triple, in the order first met.
        not_retested: Why drawn verdicts could not be compared, one line each.
        rows: The retests, as the ``resamples`` table keeps them.
    """

    run_id: str
    seed: int
    requested: int
    resample_id: str
    eligible: int = 0
    triples: dict[tuple[str, str, str], TripleAgreement] = field(default_factory=dict)
    not_retested: list[str] = field(default_factory=list)
    rows: list[ResampleRow] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "resample_id": self.resample_id,
            "seed": self.seed,
            "requested": self.requested,
            "eligible": self.eligible,
            "triples": [t.as_dict() for t in self.triples.values()],
            "not_retested": self.not_retested,
        }

    def lines(self) -> list[str]:
        """The report for a terminal, one line per triple."""
        out = [
            f"resample {self.resample_id} of run {self.run_id}: {len(self.rows)} of "
            f"{self.eligible} judge verdicts asked again (seed {self.seed})"
        ]
        for t in self.triples.values():
            figures = t.as_dict()
            low, high = figures["agreement_ci95"]
            rate = "n/a" if figures["agreement"] is None else f"{figures['agreement']:.1%}"
            out.append(
                f"  {t.model_id} prompt {t.prompt_sha[:12]} sampling {t.sampling_sha[:12]} "
                f"({', '.join(sorted(t.claims))}): test-retest agreement {t.agreed}/{t.asked} "
                f"= {rate} (95% CI {low:.1%}-{high:.1%})"
            )
        out += [f"  not retested: {why}" for why in self.not_retested]
        return out


def resample_run(
    store: GapStore,
    *,
    run_id: str,
    n: int,
    seed: int,
    limits: CallLimits | None = None,
) -> ResampleReport:
    """Asks ``n`` of the run's judge verdicts again and counts the agreement per triple.

    Args:
        store: The store holding the run.
        run_id: The run.
        n: Verdicts to draw (all of them when the run has fewer).
        seed: Seed of the draw, so the same verdicts can be drawn again.
        limits: Concurrency, timeout and retries of the calls.
    """
    report = ResampleReport(run_id, seed, n, uuid.uuid4().hex[:12])
    run = store.run(run_id)
    options = run.options if run is not None else None
    eligible = [row for row in store.iter_rows(run_id) if _eligible(row)]
    report.eligible = len(eligible)
    drawn = random.Random(seed).sample(eligible, min(n, len(eligible)))
    drawn.sort(key=lambda row: row.seq)
    phases: list[JudgePhase] = []

    def live_phase(loaded: LoadedContract, plan: Plan) -> JudgePhase:
        # Record mode never serves a verdict from a cache; with no store and no
        # recordings it writes none either: a retest leaves the judge cache as it was.
        phase = make_judge_phase(
            loaded,
            plan=plan,
            mode="record",
            store_path=None,
            recordings=None,
            limits=limits or CallLimits(),
            run_id=f"resample-{report.resample_id}",
        )
        phases.append(phase)
        return phase

    plans = StoredPlans(store, "", judge_phase=live_phase)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    try:
        for plan in _loaded(plans, drawn):
            unset = unset_judge_key(plan.loaded)
            if unset is not None:
                raise NoJudgeKey(
                    f"--resample asks judge {unset[0]!r} again, but {unset[1]} is not set"
                )
        answers: dict[tuple[str, str], dict[str, ClaimResult]] = {}
        for row in drawn:
            _retest(row, store, plans, options, report, now, answers)
    finally:
        for plan in _loaded(plans, drawn):
            if plan.judge is not None:
                plan.loop.run_until_complete(plan.judge.aclose())
        plans.close()
    return report


def _eligible(row: StoredRow) -> bool:
    return (
        row.kind in _JUDGED and row.status in ("pass", "fail") and bool(judge_triple(row_body(row)))
    )


def row_body(row: StoredRow) -> dict[str, Any]:
    """A row's body, parsed (empty when it is unreadable)."""
    # An unreadable body is the audit's to report; here it is a row not drawn.
    with contextlib.suppress(orjson.JSONDecodeError):
        body = orjson.loads(row.body)
        if isinstance(body, dict):
            return body
    return {}


def judge_triple(body: dict[str, Any]) -> tuple[str, str, str] | None:
    """The stability triple (model, prompt, sampling) a verdict's body records, if whole."""
    evidence = body.get("evidence")
    judge = evidence.get("judge") if isinstance(evidence, dict) else None
    if not isinstance(judge, dict):
        return None
    parts = tuple(judge.get(part) for part in TRIPLE_PARTS)
    if all(isinstance(p, str) and p.strip() for p in parts):
        return parts  # type: ignore[return-value]
    return None


def _loaded(plans: StoredPlans, rows: Iterable[StoredRow]) -> list[StoredPlan]:
    shas = {str(row_body(row).get("contract_sha256")) for row in rows}
    return [p for p in (plans.get(sha) for sha in shas) if isinstance(p, StoredPlan)]


def _retest(
    row: StoredRow,
    store: GapStore,
    plans: StoredPlans,
    options: dict[str, Any] | None,
    report: ResampleReport,
    now: str,
    answers: dict[tuple[str, str], dict[str, ClaimResult]],
) -> None:
    body = row_body(row)
    where = f"claim {row.claim_id} on case {row.case_id} (seq {row.seq})"
    content = case_content(store, body, options)
    if isinstance(content, NoContent):
        report.not_retested.append(f"{where}: {content.detail}")
        return
    plan = plans.get(str(body.get("contract_sha256")))
    if isinstance(plan, PlanUnavailable):
        report.not_retested.append(f"{where}: {plan.detail}")
        return
    if plan.judge is None:
        report.not_retested.append(f"{where}: {plan.judge_problem}")
        return
    stored = judge_triple(body)
    assert stored is not None  # drawn from the eligible rows only
    # One case's judged claims are asked together, as the run asked them; several
    # verdicts drawn from one case share those answers.
    key = (str(body.get("contract_sha256")), str(body.get("content_sha256")))
    if key not in answers:
        answers[key] = plan.results(row.case_id, content.case, [row.claim_id])
    result = answers[key][row.claim_id]
    again = judge_triple({"evidence": result.evidence})
    if result.status not in ("pass", "fail"):
        report.not_retested.append(f"{where}: the judge gave no verdict: {result.reason}")
        return
    if again != stored:
        report.not_retested.append(
            f"{where}: the judge answered under another triple ({_short(again)}, "
            f"stored {_short(stored)}), so it is not a retest"
        )
        return
    agreement = report.triples.setdefault(stored, TripleAgreement(*stored))
    agreed = result.status == row.status
    agreement.claims.add(row.claim_id)
    agreement.asked += 1
    agreement.agreed += agreed
    evidence = body.get("evidence") or {}
    report.rows.append(
        ResampleRow(
            created_at=now,
            resample_id=report.resample_id,
            run_id=row.run_id,
            seed=report.seed,
            contract_id=plan.loaded.contract.contract,
            case_id=row.case_id,
            claim_id=row.claim_id,
            model_id=stored[0],
            requested_model=str(evidence.get("requested_model") or ""),
            prompt_sha=stored[1],
            sampling_sha=stored[2],
            stored_status=row.status,
            resampled_status=result.status,
            agreed=agreed,
        )
    )


def _short(triple: tuple[str, str, str] | None) -> str:
    if triple is None:
        return "incomplete"
    return f"{triple[0]}, prompt {triple[1][:12]}, sampling {triple[2][:12]}"
