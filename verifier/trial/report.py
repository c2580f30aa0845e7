"""What a trial found: the re-asked verdicts, the figures per claim and overall, and
the outcome of the rule; as JSON, as a table, and as the ``trials`` row that keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from verifier.gaps.trials import TrialRow
from verifier.trial.figures import Figures, measured
from verifier.trial.rule import Outcome, TrialRule

__all__ = ["WITHHELD_REASON", "TrialReport", "TrialVerdict", "resume_command"]

WITHHELD_REASON = "(not kept: the run's record policy redacts fields a reply may quote)"


@dataclass(frozen=True, slots=True)
class TrialVerdict:
    """One stored verdict of the judge and the candidate's answer to the same request.

    Attributes:
        old_triple, new_triple: ``model_id``, ``prompt_sha`` and ``sampling_sha`` the
            stored verdict and the candidate's were given under.
        contract_id, contract_sha256: The stored contract the verdict was asked under.
        scale: ``(min, max, pass_at)`` of the claim's scale (``None``: pass/fail).
        old_score, new_score: The two scores on that scale (``None``: pass/fail).
        old_asked: The model the stored contract asked for (``old_triple`` names the
            one that served; they differ for an alias or a deployment).
    """

    seq: int
    run_id: str
    case_id: str
    claim_id: str
    old: bool
    new: bool
    old_reason: str
    new_reason: str
    old_triple: dict[str, str]
    new_triple: dict[str, str]
    reason_kept: bool = True
    contract_id: str = ""
    contract_sha256: str = ""
    scale: tuple[int, int, int] | None = None
    old_score: float | None = None
    new_score: float | None = None
    old_asked: str = ""

    @property
    def kind(self) -> Literal["binary", "scale"]:
        return "binary" if self.scale is None else "scale"

    @property
    def changed(self) -> bool:
        """Whether the candidate's verdict differs: the other verdict, or another score."""
        return self.old != self.new or self.old_score != self.new_score

    @classmethod
    def from_recorded(cls, kept: dict[str, Any]) -> TrialVerdict:
        """The verdict a ``trials`` row keeps (``recorded``), read back to resume it."""
        scale = kept.get("scale")
        return cls(
            seq=int(kept["seq"]),
            run_id=str(kept["run_id"]),
            case_id=str(kept["case_id"]),
            claim_id=str(kept["claim_id"]),
            old=kept["old"] == "pass",
            new=kept["new"] == "pass",
            old_reason=str(kept["old_reason"]),
            new_reason=str(kept["new_reason"]),
            old_triple=dict(kept["old_triple"]),
            new_triple=dict(kept["new_triple"]),
            reason_kept=kept["new_reason"] != WITHHELD_REASON,
            contract_id=str(kept.get("contract_id", "")),
            contract_sha256=str(kept.get("contract_sha256", "")),
            scale=(scale["min"], scale["max"], scale["pass_at"]) if scale else None,
            old_score=kept.get("old_score"),
            new_score=kept.get("new_score"),
            old_asked=str(kept.get("old_asked", "")),
        )

    def recorded(self) -> dict[str, Any]:
        """The verdict as the store keeps it: the candidate's reason left out when the
        run's record policy keeps no reply (it may quote a redacted field)."""
        kept = self.as_dict()
        if not self.reason_kept:
            kept["new_reason"] = WITHHELD_REASON
        return kept

    def as_dict(self) -> dict[str, Any]:
        scored = {}
        if self.scale is not None:
            low, high, pass_at = self.scale
            scored = {
                "scale": {"min": low, "max": high, "pass_at": pass_at},
                "old_score": self.old_score,
                "new_score": self.new_score,
            }
        return {
            "seq": self.seq,
            "kind": self.kind,
            "contract_id": self.contract_id,
            "contract_sha256": self.contract_sha256,
            "run_id": self.run_id,
            "case_id": self.case_id,
            "claim_id": self.claim_id,
            "old": _verdict(self.old),
            "new": _verdict(self.new),
            "old_reason": self.old_reason,
            "new_reason": self.new_reason,
            "old_triple": self.old_triple,
            "new_triple": self.new_triple,
            "old_asked": self.old_asked,
            **scored,
        }


@dataclass(slots=True)
class TrialReport:
    """A trial of judge ``judge`` with the candidate model ``model``.

    Attributes:
        eligible: The judge's pass/fail and scale verdicts the sample was drawn from.
        verdicts: The re-asked verdicts the candidate answered, in store order.
        not_asked: Drawn verdicts the candidate gave no verdict for, one line each.
        drawn: The store sequence numbers of the verdicts drawn (what a resumed trial
            asks again, whatever the store has gained since).
        interrupted: The trial stopped before every drawn verdict was asked.
        resumed_from: The interrupted trial this one resumed.
    """

    trial_id: str
    created_at: str
    judge: str
    model: str
    rule: TrialRule
    seed: int
    requested: int
    contract_id: str | None = None
    run_id: str | None = None
    eligible: int = 0
    verdicts: list[TrialVerdict] = field(default_factory=list)
    not_asked: list[str] = field(default_factory=list)
    drawn: list[int] = field(default_factory=list)
    interrupted: bool = False
    resumed_from: str | None = None

    def overall(self) -> Figures:
        return measured(self.verdicts)

    def per_claim(self) -> dict[str, Figures]:
        claims = sorted({v.claim_id for v in self.verdicts})
        return {c: measured([v for v in self.verdicts if v.claim_id == c]) for c in claims}

    def decision(self) -> tuple[Outcome, str]:
        if self.interrupted:
            return "interrupted", (
                f"stopped after {len(self.verdicts)} of {len(self.drawn)} drawn verdicts; "
                f"resume it: {resume_command(self)}"
            )
        return self.rule.decide(self.overall())

    def flipped(self) -> list[TrialVerdict]:
        """The verdicts the candidate changed (for a score: any other score)."""
        return [v for v in self.verdicts if v.changed]

    def figures(self) -> dict[str, Any]:
        return {
            "overall": self.overall().as_dict(),
            "claims": {c: f.as_dict() for c, f in self.per_claim().items()},
        }

    def as_dict(self) -> dict[str, Any]:
        outcome, why = self.decision()
        return {
            "trial_id": self.trial_id,
            "judge": self.judge,
            "candidate_model": self.model,
            "contract_id": self.contract_id,
            "run_id": self.run_id,
            "seed": self.seed,
            "requested": self.requested,
            "eligible": self.eligible,
            "rule": self.rule.as_dict(),
            "outcome": outcome,
            "why": why,
            "decision": {"outcome": outcome, "why": why},
            **self.figures(),
            "flipped": [v.as_dict() for v in self.flipped()],
            "not_asked": self.not_asked,
            "resumed_from": self.resumed_from,
        }

    def row(self) -> TrialRow:
        """The trial as the ``trials`` table keeps it."""
        outcome, why = self.decision()
        return TrialRow(
            created_at=self.created_at,
            trial_id=self.trial_id,
            judge=self.judge,
            candidate_model=self.model,
            contract_id=self.contract_id or "",
            run_id=self.run_id or "",
            seed=self.seed,
            requested=self.requested,
            rule=self.rule.as_dict(),
            outcome=outcome,
            figures={
                **self.figures(),
                "why": why,
                "eligible": self.eligible,
                "drawn": self.drawn,
                "resumed_from": self.resumed_from,
            },
            verdicts=[v.recorded() for v in self.verdicts],
        )

    def lines(self) -> list[str]:
        """The report for a terminal: a line per claim and overall (stricter: verdicts
        the judge passed and the candidate failed; laxer: the other way), then the flips."""
        outcome, why = self.decision()
        out = [
            f"trial {self.trial_id}: judge {self.judge} with {self.model}: {len(self.verdicts)} "
            f"of {self.eligible} verdicts re-asked (sample {self.requested}, seed {self.seed})",
            "",
            f"{'claim':<24} {'n':>4} {'agree':>7} {'kappa (95% CI)':>24} "
            f"{'pass before':>11} {'after':>7} {'diff (95% CI)':>26} {'McNemar p':>9} "
            f"{'stricter':>8} {'laxer':>5}",
        ]
        rows = [*self.per_claim().items(), ("overall", self.overall())]
        out += [_table_line(name, figures) for name, figures in rows]
        flipped = self.flipped()
        if flipped:
            out += ["", f"flipped ({len(flipped)}):"]
            out += [
                f"  {v.case_id} / {v.claim_id}: {_shown(v.old, v.old_score)} -> "
                f"{_shown(v.new, v.new_score)}"
                f"\n    then: {v.old_reason}\n    now:  {v.new_reason}"
                for v in flipped
            ]
        out += [f"not asked: {why_not}" for why_not in self.not_asked]
        out += ["", f"outcome: {outcome.upper()}: {why}"]
        return out


def resume_command(report: TrialReport) -> str:
    """The command that resumes ``report``'s trial."""
    return f"verifier judge trial {report.judge} --resume {report.trial_id}"


def _table_line(name: str, figures: Figures) -> str:
    d = figures.as_dict()
    agree = "-" if d["agreement"] is None else f"{d['agreement']:.1%}"
    kappa = "-" if d["kappa"] is None else f"{d['kappa']:.3f}"
    if d["kappa_ci"] is not None:
        kappa += f" [{d['kappa_ci'][0]:.3f}, {d['kappa_ci'][1]:.3f}]"
    before = "-" if d["pass_rate_before"] is None else f"{d['pass_rate_before']:.1%}"
    after = "-" if d["pass_rate_after"] is None else f"{d['pass_rate_after']:.1%}"
    low, high = d["difference_ci"]
    diff = f"{d['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
    line = (
        f"{name:<24} {d['n']:>4} {agree:>7} {kappa:>24} {before:>11} {after:>7} {diff:>26} "
        f"{d['mcnemar_p']:>9.4g} {d['stricter']:>8} {d['laxer']:>5}"
    )
    if d["mean_shift"] is not None:
        unit = "points" if d["shift_unit"] == "points" else "of the range"
        line += f"  shift {d['mean_shift']:+.3f} {unit} (Wilcoxon p {d['wilcoxon_p']:.4g})"
    return line


def _shown(passed: bool, score: float | None) -> str:
    return _verdict(passed) if score is None else f"{_verdict(passed)} ({score:g})"


def _verdict(passed: bool) -> str:
    return "pass" if passed else "fail"
