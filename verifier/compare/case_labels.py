"""People's labels of whole cases set against the cases' scores in a run.

A labels file may give a thumbs up or down, or a score, to a whole case
(``verifier.compare.labels.CaseLabel``). Each labelled case meets its score in the
run, as the run scored it (``verifier.engine.stored_run``): its overall when the
contract asks for one (``overall:``), else its pass share (the weighted share of its
claims passed). Thumbs are measured by the point-biserial correlation and the AUC,
scores by Spearman's correlation, each with a 95% interval
(``verifier.compare.case_stats``).

A case with an error result has no score (an error is not a 0), nor has a case whose
overall no scale claim gave. Its labels, and those of cases not in the run, are listed
with the reason, never dropped in silence. Several raters may label one case: thumbs
are combined by majority (an even split is reported as a tie and left out), scores
averaged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from verifier.compare.case_stats import Estimate, auc, point_biserial, spearman_rank
from verifier.compare.labels import CaseLabel, LabelSet
from verifier.engine.stored_run import stored_run
from verifier.gaps.store import GapStore
from verifier.results import CaseResult

__all__ = ["CaseCalibration", "CaseKindCalibration", "LeftOutLabel", "calibrate_cases"]

CaseScoreKind = Literal["overall", "pass share"]


@dataclass(frozen=True, slots=True)
class LeftOutLabel:
    """A case label with no case score to be set against, and why."""

    line: int
    case_id: str
    kind: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "case_id": self.case_id,
            "kind": self.kind,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class CaseKindCalibration:
    """How far one kind of case label (thumbs or score) follows the case scores.

    Attributes:
        kind: ``thumbs`` or ``score``.
        n: Labelled cases set against their score (ties left out).
        up: Of those, the cases people gave a thumbs up (thumbs only).
        down: And a thumbs down (thumbs only).
        point_biserial: Correlation of thumbs (up 1) with the case scores.
        auc: Probability that an up case scores above a down case (ties one half).
        spearman: Rank correlation of the people's scores with the case scores.
        ties: Cases whose raters split evenly between up and down.
    """

    kind: Literal["thumbs", "score"]
    n: int
    up: int = 0
    down: int = 0
    point_biserial: Estimate | None = None
    auc: Estimate | None = None
    spearman: Estimate | None = None
    ties: tuple[str, ...] = ()

    def statistics(self) -> dict[str, Any]:
        """The figures, as JSON and the stored calibration keep them."""
        if self.kind == "score":
            return {"n": self.n, "spearman": _figure(self.spearman, "Fisher z, Bonett-Wright")}
        return {
            "n": self.n,
            "up": self.up,
            "down": self.down,
            "point_biserial": _figure(self.point_biserial, "Fisher z"),
            "auc": _figure(self.auc, "DeLong"),
            "ties": list(self.ties),
        }

    def text(self) -> str:
        """The figures in a line."""
        cases = f"{self.n} case{'' if self.n == 1 else 's'}"
        if self.kind == "score":
            return f"scores on {cases}: Spearman {_shown(self.spearman)}"
        return (
            f"thumbs on {cases} ({self.up} up, {self.down} down): point-biserial "
            f"{_shown(self.point_biserial)}, AUC {_shown(self.auc)}"
        )


@dataclass(frozen=True, slots=True)
class CaseCalibration:
    """A run's case scores against the case labels of one labels file.

    Attributes:
        run_id: The run.
        contract_id: Its contract.
        case_score: What a case's score is: its ``overall`` or its ``pass share``.
        labels: How many case labels the file holds.
        kinds: One calibration per kind of label the file gives.
        left_out: The labels with no case score, and why.
    """

    run_id: str
    contract_id: str
    case_score: CaseScoreKind
    labels: int
    kinds: tuple[CaseKindCalibration, ...]
    left_out: tuple[LeftOutLabel, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "case_score": self.case_score,
            "labels": self.labels,
            **{k.kind: k.statistics() for k in self.kinds},
            "left_out": [label.as_dict() for label in self.left_out],
        }

    def text_lines(self, labels_path: str) -> list[str]:
        """The calibration as lines of text (``labels_path`` names the labels' lines)."""
        lines = [f"case labels ({self.labels}) against each case's {self.case_score}:"]
        for kind in self.kinds:
            lines.append(f"  {kind.text()}")
            if kind.ties:
                lines.append(f"  raters split evenly on {len(kind.ties)}: {', '.join(kind.ties)}")
        if self.left_out:
            lines.append(f"  left out ({len(self.left_out)}):")
            lines += [
                f"    {labels_path}:{label.line}: case {label.case_id} ({label.kind}): "
                f"{label.reason}"
                for label in self.left_out
            ]
        return lines


def _figure(estimate: Estimate | None, interval: str) -> dict[str, Any] | None:
    return None if estimate is None else {**estimate.as_dict(), "interval": interval}


def _shown(estimate: Estimate | None) -> str:
    if estimate is None:
        return "n/a"
    ci = estimate.ci95
    return f"{estimate.value:.3f}" + ("" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]")


def calibrate_cases(store: GapStore, labels: LabelSet, run_id: str) -> CaseCalibration | None:
    """Sets the case labels of ``labels`` against the case scores of run ``run_id``.

    Returns:
        The calibration, or ``None`` when the file gives no case label.

    Raises:
        StoredRunError: The run or its contract is not in the store.
    """
    if not labels.cases:
        return None
    run = stored_run(store, run_id)
    case_score: CaseScoreKind = "pass share" if run.plan.overall is None else "overall"
    wanted = {label.case_id for label in labels.cases}
    found: dict[str, list[CaseResult]] = defaultdict(list)
    for case in run.cases(store):
        if case.case_id in wanted:
            found[case.case_id].append(case)
    scores, left_out = _scores(labels.cases, found, run_id, case_score)
    usable = [label for label in labels.cases if label.case_id in scores]
    kinds = [
        _calibrate_kind(kind, [label for label in usable if label.kind == kind], scores)
        for kind in ("thumbs", "score")
        if any(label.kind == kind for label in labels.cases)
    ]
    return CaseCalibration(
        run_id=run_id,
        contract_id=run.record.contract_id,
        case_score=case_score,
        labels=len(labels.cases),
        kinds=tuple(kinds),
        left_out=tuple(left_out),
    )


def _scores(
    labels: Iterable[CaseLabel],
    found: dict[str, list[CaseResult]],
    run_id: str,
    case_score: CaseScoreKind,
) -> tuple[dict[str, float], list[LeftOutLabel]]:
    """Each labelled case's score, and the labels of cases that have none, with why."""
    scores: dict[str, float] = {}
    left_out: list[LeftOutLabel] = []
    for label in labels:
        why = _why_no_score(label.case_id, found.get(label.case_id, []), run_id, case_score)
        if isinstance(why, str):
            left_out.append(LeftOutLabel(label.line, label.case_id, label.kind, why))
        else:
            scores[label.case_id] = why
    return scores, left_out


def _why_no_score(
    case_id: str, cases: Sequence[CaseResult], run_id: str, case_score: CaseScoreKind
) -> float | str:
    """The case's score, or why it has none."""
    if not cases:
        return f"case {case_id!r} is not in run {run_id}"
    if len(cases) > 1:
        lines = ", ".join(str(case.line) for case in cases)
        return f"case id {case_id!r} names {len(cases)} cases of run {run_id} (lines {lines})"
    case = cases[0]
    errors = case.count("error")
    if errors:
        return f"the case has {errors} error result(s): it has no score (an error is not a 0)"
    if case_score == "pass share":
        return case.score
    if case.overall is None or case.overall.value is None:
        return "no scale claim of the case gave a score: it has no overall"
    return case.overall.value


def _calibrate_kind(
    kind: Literal["thumbs", "score"], labels: Sequence[CaseLabel], scores: dict[str, float]
) -> CaseKindCalibration:
    by_case: dict[str, list[CaseLabel]] = defaultdict(list)
    for label in labels:
        by_case[label.case_id].append(label)
    if kind == "score":
        people = [
            sum(label.score or 0.0 for label in given) / len(given) for given in by_case.values()
        ]
        spearman = spearman_rank(people, [scores[case] for case in by_case])
        return CaseKindCalibration("score", len(by_case), spearman=spearman)
    ups: list[bool] = []
    case_scores: list[float] = []
    ties: list[str] = []
    for case_id in sorted(by_case):
        votes = sum(1 if label.up else -1 for label in by_case[case_id])
        if votes == 0:
            ties.append(case_id)
            continue
        ups.append(votes > 0)
        case_scores.append(scores[case_id])
    up_scores = [s for s, up in zip(case_scores, ups, strict=True) if up]
    down_scores = [s for s, up in zip(case_scores, ups, strict=True) if not up]
    return CaseKindCalibration(
        "thumbs",
        len(ups),
        up=len(up_scores),
        down=len(down_scores),
        point_biserial=point_biserial(ups, case_scores),
        auc=auc(up_scores, down_scores),
        ties=tuple(ties),
    )
