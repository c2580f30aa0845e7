"""Every judge a store holds verdicts from: one entry per judge and stability triple.

A judge's verdicts stay comparable while its triple (served model, prompt template
hash, sampling hash) stays the same, and reproducible until its model retires. Before
moving a judge to another model, its user needs to know which judges the store holds
verdicts from: under which triples, on which claims, how many verdicts, when first and
last used, how well each agreed with human labels and with itself, and when its model
retires.

The triples are read from the judged rows' evidence as ``verifier.analyses.drift``
reads them (``judged_row``, ``judge_setup``), in one streaming pass over the rows:
memory grows with the distinct triples (and the runs, for their start times), never
with the rows. Calibrations live in a side table of a layer above this one; they are
looked up through ``CalibrationSource``, which ``CalibrationStore`` satisfies. A
triple a recorded succession moved its judge off names its successor (the store's
``Lineage``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from verifier.analyses.drift import JudgeSetup, judge_setup, judged_row
from verifier.gaps.resamples import ResampleStore
from verifier.gaps.store import GapStore
from verifier.gaps.successions import Lineage, SuccessionRow, Triple
from verifier.llm.providers.retirement import retirement_date

__all__ = [
    "CalibrationSource",
    "JudgeCalibration",
    "JudgeSuccessor",
    "ResampleAgreement",
    "StoredCalibrationLike",
    "StoredJudge",
    "VerdictCounts",
    "store_judges",
]

_JUDGED_KINDS = frozenset({"judge", "comparative"})
# contract id, judge name, served model, prompt sha, sampling sha
_Key = tuple[str, str | None, str, str, str]


class StoredCalibrationLike(Protocol):
    """What is read of a stored calibration (``verifier.compare.calibration_store``)."""

    @property
    def n(self) -> int: ...
    @property
    def kappa(self) -> float | None: ...
    @property
    def sealed(self) -> bool: ...


class CalibrationSource(Protocol):
    """The calibrations of a store, looked up as ``verifier check`` looks them up."""

    def candidates(
        self, *, contract_id: str, claim_id: str, model: str, prompt_sha: str, sampling_sha: str
    ) -> Sequence[StoredCalibrationLike]: ...


@dataclass(frozen=True, slots=True)
class VerdictCounts:
    """A judge's verdicts by status; ``scored`` counts those on a scale."""

    passed: int = 0
    failed: int = 0
    errors: int = 0
    scored: int = 0

    def as_dict(self) -> dict[str, int]:
        counts = (self.passed, self.failed, self.errors, self.scored)
        return dict(zip(("pass", "fail", "error", "scored"), counts, strict=True))


@dataclass(frozen=True, slots=True)
class JudgeCalibration:
    """A calibration against human labels: Cohen's kappa over ``labels`` cases."""

    kappa: float | None
    labels: int

    def as_dict(self) -> dict[str, Any]:
        return {"kappa": self.kappa, "labels": self.labels}


@dataclass(frozen=True, slots=True)
class ResampleAgreement:
    """Test-retest: how many verdicts were asked again, and how many came back the same."""

    asked: int
    agreed: int

    @property
    def rate(self) -> float:
        return self.agreed / self.asked

    def as_dict(self) -> dict[str, Any]:
        return {"agreement": round(self.rate, 6), "asked": self.asked, "agreed": self.agreed}


@dataclass(frozen=True, slots=True)
class JudgeSuccessor:
    """The triple a recorded succession moved a judge to (``verifier judge switch``)."""

    succession_id: str
    model: str
    prompt_sha: str
    sampling_sha: str
    trial_id: str
    outcome: str

    @classmethod
    def of(cls, row: SuccessionRow, old: Triple) -> JudgeSuccessor:
        """What ``row`` moved triple ``old`` to: of its new triples, the one with the
        same template and sampling, else the same template, else the first."""
        new = sorted(row.new)
        chosen = next(
            (t for t in new if t[1:] == old[1:]),
            next((t for t in new if t[1] == old[1]), new[0]),
        )
        return cls(row.succession_id, *chosen, row.trial_id, row.outcome)

    def as_dict(self) -> dict[str, str]:
        return {
            "succession_id": self.succession_id,
            "model": self.model,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
            "trial_id": self.trial_id,
            "outcome": self.outcome,
        }


@dataclass(frozen=True, slots=True)
class StoredJudge:
    """One judge under one triple, as the store's verdicts show it.

    Attributes:
        judge: The judge's name in its contract (``None`` when the rows do not name it).
        contract: The contract id.
        model: The served model (the triple's ``model_id``).
        asked_model: The model the contract asked for, when the rows record it.
        claims: The claims it answered, sorted.
        first_used: Start time of the first run it judged in.
        last_used: Start time of the last run it judged in.
        calibration: Its weakest sealed calibration over its claims, if any.
        resample_agreement: Its test-retest agreement over its claims, if measured.
        retires_on: When its model retires, where the provider's table says.
        days_left: Days from today to ``retires_on`` (negative once retired).
        successor: The triple the newest recorded succession moved it to, if any.
    """

    judge: str | None
    contract: str
    model: str
    asked_model: str | None
    prompt_sha: str
    sampling_sha: str
    claims: tuple[str, ...]
    verdicts: VerdictCounts
    first_used: str
    last_used: str
    calibration: JudgeCalibration | None
    resample_agreement: ResampleAgreement | None
    retires_on: dt.date | None
    days_left: int | None
    successor: JudgeSuccessor | None = None

    def as_dict(self) -> dict[str, Any]:
        """The judge as ``verifier judges --format json`` lists it."""
        return {
            "judge": self.judge,
            "contract": self.contract,
            "model": self.model,
            "asked_model": self.asked_model,
            "prompt_sha": self.prompt_sha,
            "sampling_sha": self.sampling_sha,
            "claims": list(self.claims),
            "verdicts": self.verdicts.as_dict(),
            "first_used": self.first_used,
            "last_used": self.last_used,
            "calibration": self.calibration.as_dict() if self.calibration else None,
            "resample_agreement": (
                self.resample_agreement.as_dict() if self.resample_agreement else None
            ),
            "retires_on": self.retires_on.isoformat() if self.retires_on else None,
            "days_left": self.days_left,
            "successor": self.successor.as_dict() if self.successor else None,
        }


@dataclass(slots=True)
class _Tally:
    """What the pass learns of one triple: no per-row state."""

    asked_model: str | None
    first_used: str
    last_used: str
    claims: set[str] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    scored: int = 0

    def add(self, claim_id: str, status: str, scored: bool, started_at: str) -> None:
        self.claims.add(claim_id)
        self.counts[status] = self.counts.get(status, 0) + 1
        self.scored += scored
        self.first_used = min(self.first_used, started_at)
        self.last_used = max(self.last_used, started_at)


def store_judges(
    store: GapStore,
    *,
    contract_id: str | None = None,
    calibrations: CalibrationSource | None = None,
    resamples: ResampleStore | None = None,
    lineage: Lineage | None = None,
    today: dt.date | None = None,
) -> list[StoredJudge]:
    """Every judge triple ``store`` holds verdicts from, ordered by contract, judge and
    first use.

    Args:
        store: The gap store, read in one pass over its rows.
        contract_id: Only the judges of this contract.
        calibrations: The store's calibrations; a judge's is the weakest (lowest
            kappa, an undefined kappa lowest of all) of the sealed calibrations of its
            claims, each chosen as ``verifier check`` chooses (the served model first,
            then the newest; the claim's present wording, which ``check`` also holds a
            calibration to, is not known here). ``None``: none are looked up.
        resamples: The store's resamples; a judge's agreement sums those of its claims
            re-asked under its triple, when every one of them is sealed.
        lineage: The successions (default: the store's); a judge's successor is the triple the
            newest succession of its contract (or of any contract) moved it to.
        today: The day ``days_left`` counts from (default: today, UTC).
    """
    started = {run.run_id: run.started_at for run in store.runs()}
    tallies = _tally(store, started, contract_id)
    agreements = _agreements(resamples, tallies)
    today = today or dt.datetime.now(dt.UTC).date()
    lineage = Lineage.of_store(store) if lineage is None else lineage
    found = [
        _judge(key, tally, calibrations, agreements.get(key), today, lineage)
        for key, tally in tallies.items()
    ]
    found.sort(key=lambda j: (j.contract, j.judge or "", j.first_used, j.model, j.prompt_sha))
    return found


def _tally(store: GapStore, started: dict[str, str], contract_id: str | None) -> dict[_Key, _Tally]:
    tallies: dict[_Key, _Tally] = {}
    # Each triple as recorded -> as checked (``None``: incomplete, or another contract's).
    resolved: dict[tuple[Any, ...], _Key | None] = {}
    loads = orjson.loads
    for row in store.iter_rows():
        if row.kind not in _JUDGED_KINDS:
            continue
        try:
            body = loads(row.body)
        except orjson.JSONDecodeError:
            continue
        found = judged_row(row, body if type(body) is dict else None)
        if found is None:
            continue
        (_run, contract, claim_id, name, model, prompt, sampling, kind, _stored), evidence = found
        recorded = (contract, name, model, prompt, sampling)
        if recorded not in resolved:
            resolved[recorded] = _resolve(judge_setup(found[0], evidence), contract_id)
        key = resolved[recorded]
        if key is None:
            continue
        when = started.get(row.run_id, row.recorded_at)
        tally = tallies.get(key)
        if tally is None:
            requested = evidence.get("requested_model")
            asked = requested if type(requested) is str and requested else None
            tally = tallies[key] = _Tally(asked, when, when)
        # A scale verdict, with a reference or without: "scale, reference-guided".
        scored = row.score is not None and type(kind) is str and kind.startswith("scale")
        tally.add(claim_id, row.status, scored, when)
    return tallies


def _resolve(noted: tuple[str, JudgeSetup] | None, contract_id: str | None) -> _Key | None:
    if noted is None or (contract_id is not None and noted[0] != contract_id):
        return None
    contract, setup = noted
    return (contract, setup.judge_name, *setup.triple)


def _agreements(
    resamples: ResampleStore | None, tallies: dict[_Key, _Tally]
) -> dict[_Key, ResampleAgreement]:
    """Each triple's resamples: those of its claims re-asked under its triple (served
    or requested model its own, as ``verifier check`` matches them). A triple any of
    whose resamples is not sealed gets none: an edited or forged row is no measurement
    to trust, and nothing tells which of them it is."""
    if resamples is None:
        return {}
    by_triple: dict[tuple[str, str, str, str], list[_Key]] = {}
    for key in tallies:
        by_triple.setdefault((key[0], *key[2:]), []).append(key)
    sums: dict[_Key, tuple[int, int]] = {}
    for r in resamples.all():
        for model in {r.model_id, r.requested_model}:
            for key in by_triple.get((r.contract_id, model, r.prompt_sha, r.sampling_sha), ()):
                if r.claim_id in tallies[key].claims:
                    asked, agreed = sums.get(key, (0, 0))
                    sums[key] = (asked + 1, agreed + r.agreed)
    return {
        key: ResampleAgreement(*counts)
        for key, counts in sums.items()
        if _sealed(resamples, key, tallies[key].claims) >= counts[0]
    }


def _sealed(resamples: ResampleStore, key: _Key, claims: Iterable[str]) -> int:
    """How many resamples of ``claims`` under ``key``'s triple are sealed."""
    contract, _name, model, prompt_sha, sampling_sha = key
    return sum(
        resamples.measured(
            contract_id=contract,
            claim_id=claim_id,
            model=model,
            prompt_sha=prompt_sha,
            sampling_sha=sampling_sha,
        )
        for claim_id in claims
    )


def _judge(
    key: _Key,
    tally: _Tally,
    calibrations: CalibrationSource | None,
    agreement: ResampleAgreement | None,
    today: dt.date,
    lineage: Lineage,
) -> StoredJudge:
    contract, name, model, prompt_sha, sampling_sha = key
    triple = (model, prompt_sha, sampling_sha)
    moved = lineage.of_contract(contract).successor(name, triple) if name else None
    retires = retirement_date(model) or (
        retirement_date(tally.asked_model) if tally.asked_model else None
    )
    counts = tally.counts
    return StoredJudge(
        judge=name,
        contract=contract,
        model=model,
        asked_model=tally.asked_model,
        prompt_sha=prompt_sha,
        sampling_sha=sampling_sha,
        claims=tuple(sorted(tally.claims)),
        verdicts=VerdictCounts(
            counts.get("pass", 0), counts.get("fail", 0), counts.get("error", 0), tally.scored
        ),
        first_used=tally.first_used,
        last_used=tally.last_used,
        calibration=_calibration(key, tally.claims, calibrations),
        resample_agreement=agreement,
        retires_on=retires,
        days_left=(retires - today).days if retires else None,
        successor=JudgeSuccessor.of(moved, triple) if moved else None,
    )


def _calibration(
    key: _Key, claims: Iterable[str], calibrations: CalibrationSource | None
) -> JudgeCalibration | None:
    """The weakest of the calibrations ``verifier check`` would choose for its claims
    (sealed only: an unsealed row may be forged, and is never credited)."""
    if calibrations is None:
        return None
    contract, _name, model, prompt_sha, sampling_sha = key
    chosen = []
    for claim_id in sorted(claims):
        found = calibrations.candidates(
            contract_id=contract,
            claim_id=claim_id,
            model=model,
            prompt_sha=prompt_sha,
            sampling_sha=sampling_sha,
        )
        sealed = next((c for c in found if c.sealed), None)
        if sealed is not None:
            chosen.append(sealed)
    if not chosen:
        return None
    weakest = min(chosen, key=lambda c: (c.kappa is not None, c.kappa or 0.0, c.n))
    return JudgeCalibration(weakest.kappa, weakest.n)
