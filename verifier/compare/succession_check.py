"""What ``verifier check`` says of a contract's judges from the store's recorded
successions (``verifier.gaps.successions``).

- A judge switched to the model the contract pins, whose claim has no calibration of
  that model but one of the model it succeeded: the calibration is of the old model,
  and the trial that measured the successor is quoted as the reason to re-calibrate.
  The trial compared the successor with the old judge, not with people, so it is
  never counted as a calibration: the claim stays uncalibrated.
- A judge that still pins a model the store records a succession off (a model that
  retires, most often): the succession is named, so the move already measured is
  the one to make.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from verifier.gaps.successions import Lineage, SuccessionRow

if TYPE_CHECKING:
    from verifier.compare.calibration_store import CalibrationStore, StoredCalibration
    from verifier.contract.models import JudgeClaim

__all__ = ["succeeded_calibration", "successions_off"]


def succeeded_calibration(
    lineage: Lineage, claim: JudgeClaim, model: str, store: CalibrationStore, contract_id: str
) -> str | None:
    """Why ``claim``'s judge, switched to ``model``, is calibrated on its old model only:
    the succession and its trial, and the calibration of the old model; ``None`` when
    no succession to ``model`` has a calibration of the claim under its old triple."""
    for row, calibration in _old_calibrations(lineage, claim, model, store, contract_id):
        old = calibration.model_id
        return (
            f"succeeded {old} (succession {row.succession_id}, trial {row.trial_id}: "
            f"{row.agreement()}); its calibration (run {calibration.run_id}) is of "
            f"{old}: re-calibrate (`verifier calibrate --labels FILE --trial {row.trial_id}`, "
            f"or on a run {model} judged); the trial's agreement is a reason to re-calibrate, "
            "not a calibration"
        )
    return None


def _old_calibrations(
    lineage: Lineage, claim: JudgeClaim, model: str, store: CalibrationStore, contract_id: str
) -> Iterator[tuple[SuccessionRow, StoredCalibration]]:
    """The sealed calibrations of ``claim`` under the old triples of each succession of
    its judge to ``model``, newest succession first."""
    for row in reversed(lineage.of_judge(claim.judge)):
        if not row.moves_to(model):
            continue
        for old in sorted(row.old):
            for calibration in store.candidates(
                contract_id=contract_id,
                claim_id=claim.id,
                model=old[0],
                prompt_sha=old[1],
                sampling_sha=old[2],
            ):
                if calibration.sealed:
                    yield row, calibration


def successions_off(lineage: Lineage, judge: str, model: str) -> str | None:
    """A line naming the newest succession of ``judge`` off ``model``, with the model's
    retirement date when a provider publishes one; ``None`` when none is recorded."""
    from verifier.llm.providers.retirement import retirement_date

    row = next((r for r in reversed(lineage.of_judge(judge)) if r.moves_off(model)), None)
    if row is None:
        return None
    retires = retirement_date(model)
    when = f" retires on {retires.isoformat()} and" if retires is not None else ""
    return (
        f"judge {judge!r}: model {model!r}{when} has a recorded successor: {row.summary()}; "
        f"pin {row.pinned()} in this contract to judge as the store's lineage does"
    )
