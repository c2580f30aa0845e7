"""Joining human labels with a run's judge rows, and measuring their agreement.

A label meets the judge row of the same (case, claim) in the chosen run. Only rows
with a verdict (pass or fail) and a complete stability triple can be compared; a label
whose row is an error, skipped, lacks the triple, or does not exist is reported as
unmatched with the reason, never dropped in silence.

Verdicts are compared per claim and per triple: a claim judged under two triples in
one run (the served model changed mid-run) gets two calibrations, since a calibration
vouches for one pinned judge only.

Several raters may label one case. Their verdicts are combined by majority (a score
label counts as a pass when it reaches the claim's ``pass_at``); an even split is
reported as a tie and left out of the kappa. Their scores are averaged for the
correlations. With two raters or more, Krippendorff's alpha says how far the people
agree with one another, and how far they agree when the judge is counted as one more.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from operator import attrgetter
from typing import Any

import orjson

from verifier.compare.agreement import DEFAULT_KAPPA_MARGIN, weighted_kappa
from verifier.compare.calibrate import (
    cohens_kappa,
    confusion_of,
    krippendorff_alpha,
    landis_koch_band,
    pearson,
    percent_agreement,
    spearman,
)
from verifier.compare.calibration_claim import StoredWordings
from verifier.compare.calibration_report import (
    CalibrationReport,
    ClaimCalibration,
    Disagreement,
    Unmatched,
)
from verifier.compare.labels import HumanLabel, LabelSet
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, StoredRow
from verifier.llm.triple import missing_parts

__all__ = [
    "CalibrationError",
    "JudgeVerdict",
    "Scale",
    "calibrate_run",
    "calibrate_verdicts",
    "judge_verdict",
]

# contract, claim, model, prompt_sha, sampling_sha, the claim's wording ("": not known)
_GroupKey = tuple[str, str, str, str, str, str]


class CalibrationError(VerifierError):
    """A calibration that cannot be made (no such run, nothing to compare)."""


@dataclass(frozen=True, slots=True)
class Scale:
    min: float
    max: float
    pass_at: float


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """What a calibration needs of one stored judge row."""

    contract_id: str
    case_id: str
    claim_id: str
    status: str
    score: float | None
    reason: str
    triple: dict[str, Any] | None
    requested_model: str
    scale: Scale | None
    contract_sha256: str = ""
    wording: str | None = None

    @property
    def key(self) -> _GroupKey:
        t = self.triple or {}
        return (
            self.contract_id,
            self.claim_id,
            str(t.get("model_id")),
            str(t.get("prompt_sha")),
            str(t.get("sampling_sha")),
            self.wording or "",
        )

    @property
    def scale_score(self) -> float | None:
        """The judge's score on the claim's scale (its 0-1 score when it has none)."""
        if self.score is None or self.scale is None:
            return self.score
        return self.scale.min + self.score * (self.scale.max - self.scale.min)

    @property
    def shown(self) -> str:
        score = self.scale_score
        return (
            f"{self.status} ({score:g})"
            if self.scale is not None and score is not None
            else self.status
        )


def _scale_of(evidence: dict[str, Any]) -> Scale | None:
    candidates = [evidence.get("verdict")]
    samples = evidence.get("samples")
    if isinstance(samples, list):
        candidates += [s.get("evidence") for s in samples if isinstance(s, dict)]
    for found in candidates:
        raw = found.get("scale") if isinstance(found, dict) else None
        if isinstance(raw, dict):
            try:
                return Scale(float(raw["min"]), float(raw["max"]), float(raw["pass_at"]))
            except (KeyError, TypeError, ValueError):
                return None
    return None


def judge_verdict(row: StoredRow) -> JudgeVerdict:
    """Reads a stored judge row's verdict, triple and scale from its body."""
    body = orjson.loads(row.body)
    evidence = body.get("evidence") if isinstance(body.get("evidence"), dict) else {}
    triple = evidence.get("judge")
    return JudgeVerdict(
        contract_id=str(body.get("contract_id", "")),
        case_id=row.case_id,
        claim_id=row.claim_id,
        status=row.status,
        score=row.score,
        reason=str(body.get("reason") or ""),
        triple=triple if isinstance(triple, dict) else None,
        requested_model=str(evidence.get("requested_model") or ""),
        scale=_scale_of(evidence),
        contract_sha256=str(body.get("contract_sha256") or ""),
    )


def _label_passed(label: HumanLabel, scale: Scale | None) -> bool | None:
    if label.verdict is not None:
        return label.verdict == "pass"
    if label.score is not None and scale is not None:
        return label.score >= scale.pass_at
    return None


def _why_unmatched(
    label: HumanLabel,
    row: JudgeVerdict | None,
    run_id: str,
    cases: set[str],
    claims: dict[str, str],
) -> str | None:
    if row is None:
        kind = claims.get(label.claim_id)
        if kind is None:
            return f"claim {label.claim_id!r} has no rows in run {run_id}"
        if kind != "judge":
            return f"claim {label.claim_id!r} is a {kind} claim, not a judge claim"
        if label.case_id not in cases:
            return f"case {label.case_id!r} is not in run {run_id}"
        return f"no judge row for this case and claim in run {run_id}"
    if row.status not in ("pass", "fail"):
        return f"the judge row is {row.status}: {row.reason.removeprefix(row.status + ': ')}"
    missing = missing_parts(row.triple)
    if missing:
        return f"the judge row lacks the stability triple's {', '.join(missing)}"
    return None


def calibrate_run(
    store: GapStore,
    labels: LabelSet,
    run_id: str | None = None,
    *,
    kappa_margin: float = DEFAULT_KAPPA_MARGIN,
) -> CalibrationReport:
    """Compares a run's judge verdicts with human labels, per claim and per triple.

    Args:
        store: The gap store holding the run.
        labels: The human labels (``read_labels``).
        run_id: The run; default: the last run of the store.
        kappa_margin: Half-width of kappa's 95% interval to plan the labels for.

    Raises:
        CalibrationError: The store has no such run (or no run at all).
    """
    record = store.run(run_id) if run_id else store.last_run()
    if record is None:
        raise CalibrationError(
            f"run {run_id} is not in {store.location}"
            if run_id
            else f"{store.location} has no runs"
        )
    run = record.run_id
    verdicts = _RunVerdicts(labels, StoredWordings(store))
    for case_id, group in groupby(store.iter_rows_by_case(run), attrgetter("case_id")):
        verdicts.read_case(case_id, group)
    return calibrate_verdicts(
        run,
        labels,
        verdicts.rows,
        lambda label, row: _why_unmatched(label, row, run, verdicts.cases, verdicts.claims),
        kappa_margin=kappa_margin,
        unlabelled=verdicts.unlabelled,
    )


class _RunVerdicts:
    """A run's judge verdicts as its cases stream past: those of the labelled items
    kept, the others only counted (pass or fail) by claim, triple and wording."""

    def __init__(self, labels: LabelSet, wordings: StoredWordings) -> None:
        self.labelled = {(label.case_id, label.claim_id) for label in labels.labels}
        self.wordings = wordings
        self.rows: dict[tuple[str, str], JudgeVerdict] = {}
        self.cases: set[str] = set()  # the labelled cases the run has
        self.claims: dict[str, str] = {}
        self.unlabelled: dict[_GroupKey, int] = defaultdict(int)
        self._label_cases = {case for case, _ in self.labelled}

    def read_case(self, case_id: str, rows: Iterable[StoredRow]) -> None:
        """Reads one case's rows (in seq order)."""
        if case_id in self._label_cases:
            self.cases.add(case_id)
        last: dict[str, StoredRow] = {}
        for stored in rows:
            self.claims.setdefault(stored.claim_id, stored.kind)
            if stored.kind == "judge":
                # A resumed run can hold a case twice; the later row is the run's word.
                last[stored.claim_id] = stored
        for claim_id, stored in last.items():
            verdict = judge_verdict(stored)
            verdict = replace(
                verdict, wording=self.wordings.text(verdict.contract_sha256, verdict.claim_id)
            )
            if (case_id, claim_id) in self.labelled:
                self.rows[(case_id, claim_id)] = verdict
            elif verdict.status in ("pass", "fail"):
                self.unlabelled[verdict.key] += 1


def calibrate_verdicts(
    run_id: str,
    labels: LabelSet,
    rows: dict[tuple[str, str], JudgeVerdict],
    why_unmatched: Callable[[HumanLabel, JudgeVerdict | None], str | None],
    *,
    kappa_margin: float = DEFAULT_KAPPA_MARGIN,
    trial_id: str | None = None,
    unlabelled: Mapping[_GroupKey, int] | None = None,
) -> CalibrationReport:
    """Joins ``labels`` with judge verdicts by (case, claim) and measures them, per
    claim and per triple.

    Args:
        run_id: What the verdicts are of, as the calibrations keep it.
        labels: The human labels.
        rows: The verdict of each (case, claim).
        why_unmatched: Why a label has no usable verdict (``None``: it has one).
        kappa_margin: Half-width of kappa's 95% interval to plan the labels for.
        trial_id: The trial whose re-asked verdicts these are, if they are.
        unlabelled: Pass/fail verdicts of items no label names, counted by group, when
            ``rows`` holds only the labelled items' verdicts; added to those of ``rows``.
    """
    unmatched: list[Unmatched] = []
    by_item: dict[tuple[str, str], list[HumanLabel]] = defaultdict(list)
    for label in labels.labels:
        row = rows.get((label.case_id, label.claim_id))
        why = why_unmatched(label, row)
        if why is not None:
            unmatched.append(Unmatched(label.line, label.case_id, label.claim_id, label.rater, why))
        else:
            by_item[(label.case_id, label.claim_id)].append(label)
    groups: dict[_GroupKey, list[tuple[JudgeVerdict, list[HumanLabel]]]] = defaultdict(list)
    for item, item_labels in by_item.items():
        verdict = rows[item]
        groups[verdict.key].append((verdict, item_labels))
    unlabelled = defaultdict(int, unlabelled or {})
    for item, verdict in rows.items():
        if item not in by_item and verdict.status in ("pass", "fail"):
            unlabelled[verdict.key] += 1
    results = [
        _calibrate_claim(key, items, unlabelled[key], kappa_margin)
        for key, items in sorted(groups.items())
    ]
    return CalibrationReport(
        run_id=run_id,
        labels_path=str(labels.path),
        labels_sha256=labels.sha256,
        labels=len(labels.labels),
        claims=tuple(results),
        unmatched=tuple(unmatched),
        trial_id=trial_id,
    )


def _human_shown(labels: Sequence[HumanLabel]) -> str:
    if len(labels) == 1:
        return labels[0].shown
    return ", ".join(f"{label.rater or '?'}={label.shown}" for label in labels)


def _calibrate_claim(
    key: _GroupKey,
    items: list[tuple[JudgeVerdict, list[HumanLabel]]],
    unlabelled: int,
    kappa_margin: float,
) -> ClaimCalibration:
    contract_id, claim_id, model_id, prompt_sha, sampling_sha, wording = key
    items.sort(key=lambda pair: pair[0].case_id)
    pairs: list[tuple[bool, bool]] = []
    human_scores: list[float] = []
    judge_scores: list[float] = []
    ties: list[str] = []
    disagreements: list[Disagreement] = []
    for verdict, labels in items:
        judge_passed = verdict.status == "pass"
        votes = [
            v for v in (_label_passed(label, verdict.scale) for label in labels) if v is not None
        ]
        passes = sum(votes)
        if votes and passes * 2 == len(votes):
            ties.append(verdict.case_id)
        elif votes:
            human_passed = passes * 2 > len(votes)
            pairs.append((human_passed, judge_passed))
            if human_passed != judge_passed:
                disagreements.append(
                    Disagreement(
                        verdict.case_id,
                        claim_id,
                        _human_shown(labels),
                        verdict.shown,
                        verdict.reason,
                    )
                )
        scores = [label.score for label in labels if label.score is not None]
        judge_score = verdict.scale_score
        if scores and judge_score is not None:
            human_scores.append(sum(scores) / len(scores))
            judge_scores.append(judge_score)
    table = confusion_of(pairs)
    kappa = cohens_kappa(table)
    raters = tuple(sorted({label.rater for _, labels in items for label in labels}))
    return ClaimCalibration(
        contract_id=contract_id,
        claim_id=claim_id,
        model_id=model_id,
        requested_model=items[0][0].requested_model,
        prompt_sha=prompt_sha,
        sampling_sha=sampling_sha,
        n=table.n,
        confusion=table,
        agreement=percent_agreement(table),
        kappa=kappa,
        band=landis_koch_band(kappa) if kappa is not None else None,
        scored=len(human_scores),
        spearman=spearman(human_scores, judge_scores),
        pearson=pearson(human_scores, judge_scores),
        raters=raters,
        alpha=_alphas(raters, items) if len(raters) >= 2 else {},
        ties=tuple(ties),
        unlabelled=unlabelled,
        disagreements=tuple(disagreements),
        kappa_margin=kappa_margin,
        weighted_kappa=weighted_kappa(human_scores, judge_scores),
        claim_wording=wording or None,
    )


def _alphas(
    raters: Sequence[str], items: Sequence[tuple[JudgeVerdict, list[HumanLabel]]]
) -> dict[str, float | None]:
    """Krippendorff's alpha among the raters, and with the judge counted as a rater."""
    nominal: list[list[float | None]] = []
    interval: list[list[float | None]] = []
    for rater in raters:
        given = [{label.rater: label for label in labels}.get(rater) for _, labels in items]
        nominal.append(
            [
                _as_code(_label_passed(g, v.scale)) if g else None
                for g, (v, _) in zip(given, items, strict=True)
            ]
        )
        interval.append([g.score if g else None for g in given])
    judge_nominal: list[float | None] = [_as_code(v.status == "pass") for v, _ in items]
    judge_interval: list[float | None] = [v.scale_score for v, _ in items]
    out: dict[str, float | None] = {
        "nominal": krippendorff_alpha(nominal, "nominal"),
        "nominal_with_judge": krippendorff_alpha([*nominal, judge_nominal], "nominal"),
    }
    if any(v is not None for row in interval for v in row):
        out["interval"] = krippendorff_alpha(interval, "interval")
        out["interval_with_judge"] = krippendorff_alpha([*interval, judge_interval], "interval")
    return out


def _as_code(passed: bool | None) -> float | None:
    return None if passed is None else float(passed)
