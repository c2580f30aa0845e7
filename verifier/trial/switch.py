"""Recording a judge's succession after a trial (``verifier judge switch``; ADR 0074).

A succession says: judge J's verdicts were stored under these triples, a trial asked
them again under those, found this, and the judge was moved. It is built from the
sealed trial alone (the old triples are those of the re-asked verdicts, the new ones
those the candidate answered under, the figures the trial's overall ones, the rule and
outcome the trial's), so nothing in it is the switcher's word but the reason a trial
that did not pass was accepted. It is sealed when saved (``verifier.gaps.successions``),
and every reader that sees the judge's triple change asks the ``Lineage`` whether a
succession explains it.

With a contract file, the switch also changes the judge's ``model:`` in it, and
nothing else (``verifier.contract.judge_model``). The file is written first and the
succession saved after; if the save fails, the file is put back.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from pathlib import Path

from verifier.contract.judge_model import (
    JudgeModelEdit,
    plan_judge_model,
    restore_judge_model,
    write_judge_model,
)
from verifier.contract.load import load_contract
from verifier.errors import ContractError, VerifierError
from verifier.gaps.row import TRIPLE_PARTS
from verifier.gaps.successions import SuccessionRow, SuccessionStore, Triple
from verifier.gaps.trials import TrialRow, TrialStore

__all__ = ["SwitchRefused", "Switched", "switch_judge"]


class SwitchRefused(VerifierError):
    """A succession that cannot be recorded from the trial (or written to the contract)."""


@dataclass(frozen=True, slots=True)
class Switched:
    """A recorded succession, and the contract file changed with it, if any."""

    row: SuccessionRow
    edit: JudgeModelEdit | None = None

    def lines(self) -> list[str]:
        """What was recorded (the succession's summary) and written, for a terminal."""
        found = [f"recorded {self.row.summary()}"]
        if self.edit is not None:
            e = self.edit
            found.append(
                f"wrote {e.path}: judge {e.judge}'s model {e.old_model} -> {e.model} "
                f"(line {e.line}; nothing else changed)"
            )
        return found


@dataclass(frozen=True, slots=True)
class _Plan:
    trial: TrialRow
    old: list[Triple]
    new: list[Triple]


def switch_judge(
    target: str,
    judge: str,
    trial_id: str,
    *,
    accept_failed: str | None = None,
    write: Path | None = None,
) -> Switched:
    """Records judge ``judge``'s succession measured by trial ``trial_id``, sealed.

    Args:
        target: The store, as ``--store`` names it.
        judge: The judge's name in its contracts.
        trial_id: The sealed trial of that judge that measured the successor.
        accept_failed: Why a trial whose outcome is not ``pass`` is accepted; without
            it such a trial is refused.
        write: A contract file whose judge's ``model:`` is set to the trial's candidate.

    Returns:
        The succession as it was saved, and the edit of ``write``.

    Raises:
        SwitchRefused: The trial is unknown, not sealed, of another judge, did not pass
            (without ``accept_failed``) or is already recorded; or the contract cannot
            be changed (another judge's model, another template, no such judge).
        VerifierError: The store or the contract file cannot be read or written.
    """
    plan = _plan(target, judge, trial_id, accept_failed)
    edit = _edit(plan, write) if write is not None else None
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    row = SuccessionRow(
        created_at=now,
        succession_id=uuid.uuid4().hex[:12],
        judge=judge,
        contract_id=plan.trial.contract_id,
        trial_id=plan.trial.trial_id,
        old_triples=[list(t) for t in plan.old],
        new_triples=[list(t) for t in plan.new],
        rule=plan.trial.rule,
        outcome=plan.trial.outcome,
        figures=dict(plan.trial.figures.get("overall") or {}),
        accepted_failed=(accept_failed or "").strip(),
        written=str(write) if write is not None else "",
        asked_models={"old": sorted(_asked(plan.trial)), "new": [plan.trial.candidate_model]},
    )
    if edit is not None:
        write_judge_model(edit)
    try:
        with SuccessionStore(target) as successions:
            successions.save(row)
    except VerifierError:
        if edit is not None:
            restore_judge_model(edit)
        raise
    return Switched(row, edit)


def _plan(target: str, judge: str, trial_id: str, accept_failed: str | None) -> _Plan:
    with TrialStore(target, read_only=True) as trials:
        trial = trials.sealed_trial(trial_id, judge=judge)
    trial_id = trial.trial_id  # ``last`` named
    if accept_failed is not None and not accept_failed.strip():
        raise SwitchRefused("--accept-failed needs a reason: why the trial is accepted")
    if trial.outcome == "interrupted":
        raise SwitchRefused(
            f"trial {trial_id} was interrupted before it asked every drawn verdict: resume it "
            f"(verifier judge trial {judge} --resume {trial_id}) and switch on the resumed trial"
        )
    if trial.outcome != "pass" and accept_failed is None:
        why = trial.figures.get("why") or "its rule did not pass"
        raise SwitchRefused(
            f"trial {trial_id}'s outcome is {trial.outcome}: {why}; to switch all the same, "
            'give --accept-failed "REASON" (the reason is recorded)'
        )
    if trial.outcome == "pass" and accept_failed is not None:
        raise SwitchRefused(f"trial {trial_id} passed: --accept-failed is for a trial that did not")
    with SuccessionStore(target, read_only=True) as successions:
        done = next((s for s in successions.all() if s.trial_id == trial_id), None)
    if done is not None:
        raise SwitchRefused(
            f"trial {trial_id} is already recorded as succession {done.succession_id}: "
            "a trial measures one succession"
        )
    old = _triples(trial, "old_triple")
    new = _triples(trial, "new_triple")
    if not old or not new:
        raise SwitchRefused(f"trial {trial_id} re-asked no verdict: it measured no successor")
    return _Plan(trial, old, new)


def _asked(trial: TrialRow) -> set[str]:
    """The models the contracts of the trial's verdicts asked for."""
    return {str(v.get("old_asked") or "") for v in trial.verdicts} - {""}


def _edit(plan: _Plan, path: Path) -> JudgeModelEdit:
    """The change of the contract file, checked against the trial before anything is
    written."""
    trial = plan.trial
    try:
        loaded = load_contract(path)
    except ContractError as exc:
        raise SwitchRefused(f"--write {path}: {str(exc).splitlines()[0]}") from None
    contract = loaded.contract
    spec = contract.judges.get(trial.judge)
    if spec is None:
        raise SwitchRefused(
            f"--write {path}: contract {contract.contract} has no judge {trial.judge}"
        )
    if trial.contract_id and trial.contract_id != contract.contract:
        raise SwitchRefused(
            f"--write {path}: it is contract {contract.contract}; trial {trial.trial_id} "
            f"was of contract {trial.contract_id}"
        )
    # The contract names the model it asks; the triple the one that served.
    old_models = sorted({t[0] for t in plan.old} | _asked(trial))
    if spec.model not in old_models:
        raise SwitchRefused(
            f"--write {path}: judge {trial.judge} there asks {spec.model}, but trial "
            f"{trial.trial_id} re-asked verdicts of {', '.join(old_models)}"
        )
    if {t[1] for t in plan.new} - {t[1] for t in plan.old}:
        raise SwitchRefused(
            f"--write {path}: trial {trial.trial_id} asked with another template than the "
            "judge's, and a trial does not record the file: set the judge's prompt and "
            "model by hand, or switch without --write"
        )
    return plan_judge_model(path, trial.judge, trial.candidate_model)


def _triples(trial: TrialRow, name: str) -> list[Triple]:
    """The distinct complete triples ``name`` (``old_triple`` or ``new_triple``) of
    the trial's re-asked verdicts, sorted."""
    found: set[Triple] = set()
    for verdict in trial.verdicts:
        value = verdict.get(name)
        if isinstance(value, dict):
            model, prompt, sampling = (value.get(k) for k in TRIPLE_PARTS)
            if all(isinstance(p, str) and p for p in (model, prompt, sampling)):
                found.add((str(model), str(prompt), str(sampling)))
    return sorted(found)
