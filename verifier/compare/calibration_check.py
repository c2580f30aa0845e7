"""``verifier check``'s warnings about judges without a trustworthy calibration.

A judge claim is warned about when its judge has no calibration against human labels
(``verifier.compare.calibration_store``) on at least ``MIN_CALIBRATED_CASES`` labelled
cases, or one with a kappa under ``MIN_KAPPA``, and no measured test-retest agreement.

A contract names the model it requests, while a calibration records the model that
was served; a calibration matches when either equals the contract's model. The
triple's other two parts are computed from the contract without calling anyone: the
template's bytes and the sampling parameters that would be sent.

The store's judge successions are read beside them (``succession_check``): a judge
switched to the pinned model whose claim is calibrated on the model it succeeded is
told so, with the trial as the reason to re-calibrate (never as a calibration), and a
judge still pinning a model the store records a succession off is named with it.

The stores are imported only when a contract has judge claims and a store file exists:
they bring the whole gap store, which checking a contract of rubric claims, or one
with no store beside it, never opens.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from verifier.compare.calibrate import landis_koch_band
from verifier.contract.models import JudgeClaim
from verifier.errors import Diagnostic
from verifier.gaps.target import sqlite_path

if TYPE_CHECKING:
    from verifier.compare.calibration_claim import ClaimWording
    from verifier.compare.calibration_store import CalibrationStore, StoredCalibration
    from verifier.contract.load import LoadedContract
    from verifier.gaps.resamples import ResampleStore
    from verifier.gaps.successions import Lineage

__all__ = ["MIN_CALIBRATED_CASES", "MIN_KAPPA", "CalibrationCheck"]

MIN_CALIBRATED_CASES: Final = 20
"""Labelled cases a calibration needs before it is trusted (the evaluation template's
held-out set of at least 20 examples)."""

MIN_KAPPA: Final = 0.6
"""Lowest Cohen's kappa accepted: above it Landis & Koch call agreement substantial."""


def _judge_parts(loaded: LoadedContract, claim: JudgeClaim) -> tuple[str, str] | None:
    """The ``prompt_sha`` and ``sampling_sha`` a claim's judge would be called with."""
    from verifier.contract.judge_template import TemplateError, load_template
    from verifier.judge.prompt import has_reference, judge_prompt_sha, verdict_kind
    from verifier.llm.providers.registry import sent_sampling
    from verifier.llm.triple import sampling_sha_of

    spec = loaded.contract.judges.get(claim.judge)
    if spec is None:
        return None
    try:
        kind = verdict_kind(claim)
        template = load_template(spec, loaded.files, kind, reference=has_reference(claim))
        sampling = sent_sampling(spec.provider, spec.sampling)
    except (TemplateError, ValueError):
        return None  # the contract lint reports these
    return judge_prompt_sha(template, kind), sampling_sha_of(sampling)


class CalibrationCheck:
    """``verifier check``'s warnings about judges without a trustworthy calibration.

    Args:
        target: The gap store (a SQLite file, ``sqlite:///`` or ``postgresql://`` URL).
        note: Called once with a line to show when calibrations cannot be checked
            (no store file, or a store that cannot be read).
    """

    def __init__(self, target: str, note: Callable[[str], None]) -> None:
        self.target = target
        self._note = note
        self._noted = False

    def _say_once(self, text: str) -> None:
        if not self._noted:
            self._noted = True
            self._note(text)

    def warnings(self, loaded: LoadedContract) -> list[Diagnostic]:
        """One warning per judge claim of ``loaded`` lacking a sufficient calibration."""
        claims = [(i, c) for i, c in enumerate(loaded.contract.claims) if isinstance(c, JudgeClaim)]
        if not claims:
            return []
        path = sqlite_path(self.target)
        if path is not None and not Path(path).is_file():
            self._say_once(f"no calibration store found at {path}; judge calibrations not checked")
            return []
        # Deferred: see the module's docstring.
        from verifier.compare.calibration_store import CalibrationStore, CalibrationStoreError
        from verifier.gaps.resamples import ResampleStore, ResampleStoreError
        from verifier.gaps.successions import Lineage, SuccessionStoreError

        out: list[Diagnostic] = []
        try:
            with (
                CalibrationStore(self.target, read_only=True) as store,
                ResampleStore(self.target, read_only=True) as resamples,
            ):
                lineage = Lineage.read(self.target).of_contract(loaded.contract.contract)
                for index, claim in claims:
                    problem = self._problem(loaded, claim, store, resamples, lineage)
                    if problem is not None:
                        out.append(_warning(loaded, ("claims", index), problem))
        except (CalibrationStoreError, ResampleStoreError, SuccessionStoreError) as exc:
            self._say_once(f"{exc}; judge calibrations not checked")
            return []
        return [*_successions_off(loaded, lineage, {c.judge for _, c in claims}), *out]

    @staticmethod
    def _problem(
        loaded: LoadedContract,
        claim: JudgeClaim,
        store: CalibrationStore,
        resamples: ResampleStore,
        lineage: Lineage,
    ) -> str | None:
        parts = _judge_parts(loaded, claim)
        if parts is None:
            return None
        spec = loaded.contract.judges[claim.judge]
        triple = {
            "contract_id": loaded.contract.contract,
            "claim_id": claim.id,
            "model": spec.model,
            "prompt_sha": parts[0],
            "sampling_sha": parts[1],
        }
        found, stale = _credited(store, claim, triple)
        who = f"claim {claim.id!r}: judge {claim.judge!r} ({spec.model}, prompt {parts[0][:12]})"
        if found is None:
            # Every judge claim counts toward pass/fail (a weight is above 0), so a
            # judge whose agreement was never measured, against people or against
            # itself (ADR 0031), gates a merge on unmeasured noise.
            if resamples.measured(**triple):
                return None
            if stale is not None:
                return stale
            # A judge switched to this model, calibrated on the model it succeeded.
            from verifier.compare.succession_check import succeeded_calibration

            succeeded = succeeded_calibration(
                lineage, claim, spec.model, store, triple["contract_id"]
            )
            if succeeded is not None:
                return f"{who} {succeeded}"
            return (
                f"{who} has no calibration against human labels and no measured "
                "test-retest agreement, yet decides pass/fail; run `verifier calibrate "
                "--labels FILE` on a run of this contract, or `verifier audit --resample N "
                "--run RUN`"
            )
        if found.model_id != spec.model:
            # Verdicts another model served (an alias resolved, recorded example
            # verdicts) say nothing of how the pinned model agrees with people.
            return (
                f"{who} is calibrated only on verdicts served by {found.model_id} "
                f"(run {found.run_id}), not by {spec.model}; run `verifier calibrate` on a "
                "run the pinned model judged"
            )
        if found.n < MIN_CALIBRATED_CASES:
            return (
                f"{who} is calibrated on {found.n} labelled cases only "
                f"(run {found.run_id}); at least {MIN_CALIBRATED_CASES} are needed"
            )
        if found.kappa is None:
            return (
                f"{who} has an undefined kappa in its calibration (run {found.run_id}): "
                "labels and verdicts used one value only"
            )
        if found.kappa < MIN_KAPPA:
            band = landis_koch_band(found.kappa)
            return (
                f"{who} agrees with human labels at kappa {found.kappa:.2f} ({band}) "
                f"in its calibration (run {found.run_id}), under {MIN_KAPPA}"
            )
        return None


def _warning(loaded: LoadedContract, path: tuple[str | int, ...], text: str) -> Diagnostic:
    line, col = loaded.positions.of(path)
    return Diagnostic(str(loaded.path), line, col, text, "warning")


def _successions_off(
    loaded: LoadedContract, lineage: Lineage, judges: set[str]
) -> list[Diagnostic]:
    """A warning for each judge (of ``judges``) pinning a model the store records a
    succession off."""
    from verifier.compare.succession_check import successions_off

    out = []
    for name in sorted(judges):
        spec = loaded.contract.judges.get(name)
        text = successions_off(lineage, name, spec.model) if spec is not None else None
        if text is not None:
            out.append(_warning(loaded, ("judges", name, "model"), text))
    return out


def _credited(
    store: CalibrationStore, claim: JudgeClaim, triple: dict[str, str]
) -> tuple[StoredCalibration | None, str | None]:
    """The calibration credited to ``claim`` under ``triple``: the first ``latest``
    would choose that measured the claim's present wording. Else ``None``, with why
    the first of the others is not credited (``None`` too when there is none)."""
    from verifier.compare.calibration_claim import claim_wording

    wording = claim_wording(claim)
    stale: str | None = None
    for candidate in store.candidates(**triple):
        if not candidate.sealed:
            # A row no seal vouches for may be forged (n=500, kappa 0.99): never credited.
            stale = stale or _unsealed(claim.id, candidate)
            continue
        measured = _measured(store, candidate, claim.id)
        if measured is not None and measured.sha == wording.sha:
            return candidate, None
        if stale is None:
            stale = _not_credited(claim.id, candidate, measured, wording)
    return None, stale


def _measured(
    store: CalibrationStore, calibration: StoredCalibration, claim_id: str
) -> ClaimWording | None:
    """The wording a calibration measured: recorded with it, or (a calibration made
    before wordings were recorded) read from its run's contract while the store still
    holds that run; ``None`` when neither can tell."""
    from verifier.compare.calibration_claim import ClaimWording, stored_claim_wording

    if calibration.claim_sha is not None:
        return ClaimWording(calibration.claim_text or "", calibration.claim_sha)
    source = store.run_contract(calibration.run_id)
    return None if source is None else stored_claim_wording(source, claim_id)


def _unsealed(claim_id: str, calibration: StoredCalibration) -> str:
    return (
        f"calibration of claim {claim_id!r} (run {calibration.run_id}, "
        f"{calibration.created_at}) is not sealed in the store (saved by an earlier release "
        "and not sealed since, or edited or added by something other than verifier): not "
        "credited; `verifier calibrate` seals an earlier release's calibrations"
    )


def _not_credited(
    claim_id: str, calibration: StoredCalibration, measured: ClaimWording | None, now: ClaimWording
) -> str:
    run, since = calibration.run_id, calibration.created_at
    if measured is None:
        return (
            f"calibration of claim {claim_id!r} (run {run}, {since}) did not record the "
            f"claim's wording, and the store no longer holds run {run} to tell which it "
            "measured: not credited; run `verifier calibrate` again"
        )
    changed = measured.changed_parts(now)
    what = f"{_listed(changed)} changed" if changed else "its wording changed"
    return (
        f"calibration of claim {claim_id!r} (run {run}) was measured on another wording "
        f"of the claim ({what} since {since}): not credited; run `verifier calibrate` on "
        "a run of the claim as it reads now"
    )


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
