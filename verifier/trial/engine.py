"""Asking a judge's stored verdicts again with a candidate model (``verifier judge trial``).

The judge's pass/fail verdicts and its scores on a scale (critiques, compliance and
pairwise comparisons are not trialled) are found through the stored contracts, a
stratified sample is drawn (``verifier.trial.draw``), and each drawn verdict is asked
again exactly as a resample asks it (``verifier.recheck``: the stored contract planned
anew, the case rebuilt from its stored content) with one change: the judge's model is
the candidate (and its template the one given, if any). The phase that asks is the
resample's, in ``record`` mode with no cache and no recordings: every answer is a fresh
call, none is kept.
Each drawn verdict is asked alone (its claim's gates passed when it was stored), so
the trial makes one call per drawn verdict and sample of the judge.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from verifier.compare.signed_rank import exact_score
from verifier.contract.load import LoadedContract
from verifier.contract.models import JudgeClaim, Scale
from verifier.engine.plan import Plan
from verifier.engine.stoppable import sigterm_interrupts
from verifier.errors import VerifierError
from verifier.files import FileScope
from verifier.gaps.content import recorded_policy
from verifier.gaps.row import TRIPLE_PARTS
from verifier.gaps.store import GapStore, StoredRow
from verifier.gaps.trials import TrialRow
from verifier.judge.phase import JudgePhase
from verifier.judge.prompt import verdict_kind
from verifier.judge.setup import make_judge_phase
from verifier.llm.limits import CallLimits
from verifier.llm.providers.registry import unset_key
from verifier.llm.types import ModelProvider
from verifier.recheck.contents import NoContent, case_content
from verifier.recheck.plans import PlanUnavailable, StoredPlan, StoredPlans, touched
from verifier.recheck.resample import NoJudgeKey, judge_triple, row_body
from verifier.trial.draw import stratified
from verifier.trial.report import TrialReport, TrialVerdict
from verifier.trial.rule import TrialRule

__all__ = [
    "Candidate",
    "NoJudgeKey",
    "NoVerdicts",
    "TrialInterrupted",
    "TrialResumeError",
    "trial_judge",
]


class NoVerdicts(VerifierError):
    """The store holds no pass/fail or scale verdict of the judge to trial."""


class TrialInterrupted(KeyboardInterrupt):
    """The trial was interrupted; ``report`` holds the verdicts asked so far (outcome
    ``interrupted``), to be kept so that ``resume=`` can ask the rest."""

    def __init__(self, report: TrialReport) -> None:
        super().__init__(f"trial {report.trial_id} interrupted")
        self.report = report


@dataclass(frozen=True, slots=True)
class Candidate:
    """The triple a judge's verdicts are asked again under.

    Attributes:
        judge: The judge's name in its contracts.
        model: The candidate model id.
        prompt: A template to ask with instead of the judge's (``None``: the same).
        base_url: An endpoint for the calls (a proxy, a local test server).
        recordings: Recorded answers (``verifier run --recordings``): the candidate is
            asked nothing, its answers are replayed from this file, and no key is
            needed; with ``stand_in``, the file its answers are recorded to.
        stand_in: A provider answering in the candidate's place (example data).
    """

    judge: str
    model: str
    prompt: Path | None = None
    base_url: str | None = None
    recordings: Path | None = None
    stand_in: ModelProvider | None = None


@dataclass(frozen=True, slots=True)
class _Eligible:
    """A verdict that may be drawn: only what the draw needs, so memory stays small
    whatever the number of verdicts stored."""

    seq: int
    claim_id: str
    status: str


@dataclass(frozen=True, slots=True)
class _Stored:
    row: StoredRow
    body: dict[str, Any]


def trial_judge(
    store: GapStore,
    candidate: Candidate,
    *,
    rule: TrialRule | None = None,
    contract_id: str | None = None,
    run_id: str | None = None,
    sample: int = 200,
    seed: int = 0,
    limits: CallLimits | None = None,
    announce: Callable[[str], None] | None = None,
    resume: TrialRow | None = None,
) -> TrialReport:
    """Asks a sample of judge ``candidate.judge``'s stored verdicts with the candidate.

    Args:
        store: The store holding the verdicts.
        candidate: The judge and the model (and template) to ask with.
        rule: The decision rule (default: ``TrialRule()``).
        contract_id: Only verdicts of this contract.
        run_id: Only verdicts of this run.
        sample: Verdicts to draw (all of them when fewer are stored).
        seed: Seed of the draw.
        limits: Concurrency, timeout and retries of the calls.
        announce: Told the rule and the sample before the first call.
        resume: An interrupted trial of this judge and candidate: its rule, filters,
            seed and drawn verdicts are this trial's, and only the drawn verdicts it
            did not answer are asked (``rule``, the filters, ``sample`` and ``seed``
            are then not read).

    Raises:
        NoVerdicts: The store holds no pass/fail or scale verdict of the judge (for the
            filters).
        NoJudgeKey: The candidate's API key is not set (raised before any call).
        TrialResumeError: ``resume`` is of another judge or candidate, or finished.
        TrialInterrupted: Interrupted (Ctrl-C, or SIGTERM: its cause is then
            ``Terminated``); it carries the report of the verdicts asked so far.
    """
    if resume is not None:
        report = _resumed(resume, candidate)
        contract_id, run_id = report.contract_id, report.run_id
    else:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        report = TrialReport(
            uuid.uuid4().hex[:12], now, candidate.judge, candidate.model, rule or TrialRule(),
            seed, sample, contract_id, run_id,
        )  # fmt: skip
    catalogue = StoredPlans(store, "", judge_phase=_no_phase)
    try:
        eligible, providers = _eligible(store, catalogue, candidate.judge, contract_id, run_id)
    finally:
        catalogue.close()
    if not eligible:
        raise NoVerdicts(_nothing_to_trial(candidate.judge, contract_id, run_id))
    for provider in sorted(providers) if candidate.recordings is None else ():
        variable = unset_key(provider)
        if variable:
            raise NoJudgeKey(f"the trial asks {candidate.model}, but {variable} is not set")
    if resume is None:
        report.eligible = len(eligible)
        report.drawn = sorted(e.seq for e in stratified(eligible, sample, seed))
    answered = {v.seq for v in report.verdicts}
    picked = set(report.drawn) - answered
    drawn = [_Stored(row, row_body(row)) for row in store.iter_rows(run_id) if row.seq in picked]
    if announce is not None:
        _announce(announce, report, len(drawn), len(answered))
    try:
        with sigterm_interrupts():  # a CI job's SIGTERM stops it as Ctrl-C does
            for claim_id in sorted({s.row.claim_id for s in drawn}):
                mine = [s for s in drawn if s.row.claim_id == claim_id]
                _ask(store, candidate, claim_id, mine, limits or CallLimits(), report)
    except KeyboardInterrupt as exc:
        report.interrupted = True
        report.verdicts.sort(key=lambda v: v.seq)
        raise TrialInterrupted(report) from exc
    report.verdicts.sort(key=lambda v: v.seq)
    return report


class TrialResumeError(VerifierError):
    """A trial that cannot be resumed as asked."""


def _resumed(row: TrialRow, candidate: Candidate) -> TrialReport:
    """A new trial that continues the interrupted ``row``: its rule, filters, seed,
    sample and verdicts so far (the verdicts it could not ask are asked again)."""
    if row.outcome != "interrupted":
        raise TrialResumeError(f"trial {row.trial_id} was not interrupted ({row.outcome})")
    if (row.judge, row.candidate_model) != (candidate.judge, candidate.model):
        raise TrialResumeError(
            f"trial {row.trial_id} is of judge {row.judge} with {row.candidate_model}, "
            f"not of judge {candidate.judge} with {candidate.model}"
        )
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    kept = row.rule
    return TrialReport(
        uuid.uuid4().hex[:12], now, row.judge, row.candidate_model,
        TrialRule(kept["min_kappa"], kept["max_shift"]), row.seed, row.requested,
        row.contract_id or None, row.run_id or None, eligible=int(row.figures["eligible"]),
        verdicts=[TrialVerdict.from_recorded(v) for v in row.verdicts],
        drawn=[int(seq) for seq in row.figures.get("drawn", [])], resumed_from=row.trial_id,
    )  # fmt: skip


def _announce(say: Callable[[str], None], report: TrialReport, asking: int, kept: int) -> None:
    say(f"rule: {report.rule.statement()}")
    if report.resumed_from is not None:
        say(
            f"resuming trial {report.resumed_from}: {kept} of {len(report.drawn)} drawn "
            f"verdicts were answered; asking the other {asking}"
        )
        return
    say(
        f"asking {asking} of {report.eligible} verdicts of judge {report.judge} "
        f"again with {report.model} (seed {report.seed})"
    )


def _no_phase(loaded: LoadedContract, plan: Plan) -> JudgePhase:
    # The catalogue only reads which claims a judge decides: it asks nothing.
    raise VerifierError("not asked")


def _eligible(
    store: GapStore,
    plans: StoredPlans,
    judge: str,
    contract_id: str | None,
    run_id: str | None,
) -> tuple[list[_Eligible], set[str]]:
    """The judge's pass/fail and scale verdicts with a complete triple, and its
    providers (one per contract that names it, which may differ)."""
    found: list[_Eligible] = []
    providers: set[str] = set()
    for row in store.iter_rows(run_id):
        if row.kind != "judge" or row.status not in ("pass", "fail"):
            continue
        body = row_body(row)
        plan = plans.get(str(body.get("contract_sha256")))
        if isinstance(plan, PlanUnavailable) or _triple(body) is None:
            continue
        if contract_id is not None and plan.loaded.contract.contract != contract_id:
            continue
        planned = plan.claims.get(row.claim_id)
        claim = planned.claim if planned is not None else None
        if _kind_of(claim, judge) is not None:
            found.append(_Eligible(row.seq, row.claim_id, row.status))
            providers.add(plan.loaded.contract.judges[judge].provider)
    return found, providers


def _nothing_to_trial(judge: str, contract_id: str | None, run_id: str | None) -> str:
    where = "".join(
        f" {what} {value}"
        for what, value in (("of contract", contract_id), ("in run", run_id))
        if value
    )
    return (
        f"no stored pass/fail verdict of judge {judge!r}{where} to trial "
        "(nor a score on a scale; critiques, compliance and pairwise comparisons are "
        "not trialled)"
    )


def _kind_of(claim: Any, judge: str) -> Literal["binary", "scale"] | None:
    """The kind of verdict ``claim`` asks ``judge`` for, when a trial asks it again."""
    if not isinstance(claim, JudgeClaim) or claim.judge != judge:
        return None
    kind = verdict_kind(claim)
    return kind if kind in ("binary", "scale") else None


def _ask(
    store: GapStore,
    candidate: Candidate,
    claim_id: str,
    drawn: list[_Stored],
    limits: CallLimits,
    report: TrialReport,
) -> None:
    """Asks the drawn verdicts of one claim again, through a phase of that claim alone."""

    def phase(loaded: LoadedContract, plan: Plan) -> JudgePhase:
        return _candidate_phase(loaded, plan, candidate, claim_id, limits, report.trial_id)

    plans = StoredPlans(store, "", judge_phase=phase)
    options: dict[str, Mapping[str, Any] | None] = {}
    try:
        for stored in drawn:
            verdict = _ask_one(store, plans, stored, options)
            if isinstance(verdict, str):
                report.not_asked.append(verdict)
            else:
                report.verdicts.append(verdict)
    finally:
        for sha in {str(s.body.get("contract_sha256")) for s in drawn}:
            plan = plans.get(sha)
            if isinstance(plan, StoredPlan) and plan.judge is not None:
                plan.loop.run_until_complete(plan.judge.aclose())
        plans.close()


def _ask_one(
    store: GapStore,
    plans: StoredPlans,
    stored: _Stored,
    options: dict[str, Mapping[str, Any] | None],
) -> TrialVerdict | str:
    row, body = stored.row, stored.body
    where = f"claim {row.claim_id} on case {row.case_id} (seq {row.seq})"
    if row.run_id not in options:
        run = store.run(row.run_id)
        options[row.run_id] = run.options if run is not None else None
    content = case_content(store, body, options[row.run_id])
    if isinstance(content, NoContent):
        return f"{where}: {content.detail}"
    plan = plans.get(str(body.get("contract_sha256")))
    if isinstance(plan, PlanUnavailable):
        return f"{where}: {plan.detail}"
    if plan.judge is None:
        return f"{where}: {plan.judge_problem}"
    withheld = touched(plan.reads(row.claim_id, content.case), content.withheld)
    if content.withheld and withheld is not None:
        why = content.withheld[withheld].get("why", "withheld")
        return f"{where}: the claim reads {withheld}, which the store withheld ({why})"
    result = plan.results(row.case_id, content.case, [row.claim_id])[row.claim_id]
    if result.status not in ("pass", "fail"):
        return f"{where}: the candidate gave no verdict: {result.reason}"
    old = _triple(body) or {}
    claim = plan.claims[row.claim_id].claim
    scale = claim.scale if isinstance(claim, JudgeClaim) else None
    return TrialVerdict(
        seq=row.seq,
        run_id=row.run_id,
        case_id=row.case_id,
        claim_id=row.claim_id,
        old=row.status == "pass",
        new=result.status == "pass",
        old_reason=str(body.get("reason") or ""),
        new_reason=result.reason,
        old_triple=old,
        new_triple=_triple({"evidence": result.evidence}) or {},
        reason_kept=not content.withheld and recorded_policy(options[row.run_id]).keeps_replies,
        contract_id=plan.loaded.contract.contract,
        contract_sha256=str(body.get("contract_sha256") or ""),
        old_asked=_asked_model(plan, row.claim_id),
        scale=None if scale is None else (scale.min, scale.max, scale.pass_at),
        old_score=_points(row.score, scale),
        new_score=_points(result.score, scale),
    )


def _asked_model(plan: StoredPlan, claim_id: str) -> str:
    """The model the stored contract asked for the claim's verdict (the triple names
    the model that served it, which may differ: an alias, a deployment)."""
    planned = plan.claims.get(claim_id)
    judge = getattr(planned.claim, "judge", None) if planned is not None else None
    spec = plan.loaded.contract.judges.get(judge) if isinstance(judge, str) else None
    return spec.model if spec is not None else ""


def _points(score: float | None, scale: Scale | None) -> float | None:
    """A stored 0-1 score on ``scale``'s points (``None`` for a pass/fail verdict),
    read as the fraction it stands for (a mean of samples may be a third)."""
    if scale is None or score is None:
        return None
    return float(scale.min + exact_score(score) * (scale.max - scale.min))


def _candidate_phase(
    loaded: LoadedContract,
    plan: Plan,
    candidate: Candidate,
    claim_id: str,
    limits: CallLimits,
    trial_id: str,
) -> JudgePhase:
    """The resample's live phase over one claim, with the candidate in the judge's place."""
    spec = loaded.contract.judges[candidate.judge]
    update: dict[str, Any] = {"model": candidate.model}
    scope = loaded.files
    if candidate.prompt is not None:
        prompt = candidate.prompt.resolve()
        update["prompt"] = str(prompt)
        scope = FileScope.of(scope.base_dir, tree=scope.tree, allow=(*scope.allowed, prompt.parent))
    judges = {**loaded.contract.judges, candidate.judge: spec.model_copy(update=update)}
    contract = loaded.contract.model_copy(update={"judges": judges})
    swapped = dataclasses.replace(loaded, contract=contract, scope=scope)
    planned = next(p for p in plan.model if p.id == claim_id)
    # Asked alone: the verdict was stored, so its gates had passed.
    alone = dataclasses.replace(planned, claim=planned.claim.model_copy(update={"after": []}))
    replayed = candidate.recordings is not None and candidate.stand_in is None
    return make_judge_phase(
        swapped,
        plan=Plan(order=(alone,), rubric=(), model=(alone,)),
        mode="replay" if replayed else "record",
        store_path=None,
        recordings=candidate.recordings,
        stand_in=candidate.stand_in,
        limits=limits,
        run_id=f"trial-{trial_id}",
        base_url=candidate.base_url,
        keep_replies=False,
    )


def _triple(body: dict[str, Any]) -> dict[str, str] | None:
    triple = judge_triple(body)
    return dict(zip(TRIPLE_PARTS, triple, strict=True)) if triple is not None else None
