"""Resuming a run: what an interrupted run already stored is read back, not redone.

Rows are appended a chunk at a time, so a case is either stored whole or not at all;
a resumed run skips the stored cases (rebuilding their results from their rows for
the report and totals) and checks only the rest. Judge verdicts obtained before the
interruption are in the cache, so even a case whose rows were lost costs no new call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, RunRecord
from verifier.sut import masked_description

if TYPE_CHECKING:
    from verifier.contract.sut_models import SutSpec


class ResumeError(VerifierError):
    """A run that cannot be resumed (unknown, finished, or of another contract)."""


def check_resumable(store: GapStore, run_id: str, contract_sha256: str) -> RunRecord:
    """The record of ``run_id``, an unfinished run of this contract.

    Raises:
        ResumeError: The run is unknown, finished, or of another contract version.
    """
    record = store.run(run_id)
    if record is None:
        raise ResumeError(f"run {run_id} is not in {store.location}")
    if record.status == "finished":
        raise ResumeError(f"run {run_id} already finished; start a new run instead")
    if record.contract_sha256 != contract_sha256:
        raise ResumeError(
            f"run {run_id} used another version of the contract "
            f"(sha256 {record.contract_sha256[:12]}…); resume it with that file"
        )
    return record


def resumed_sample(
    recorded: Mapping[str, Any], sample: float | None, seed: int | None
) -> tuple[float | None, int | None]:
    """The sample a resumed run goes on with: the one it started with.

    Options left out are taken from the run's record (``recorded``: its options).

    Raises:
        ResumeError: The options contradict the record: the resumed run would check
            another set of cases.
    """
    was_sample, was_seed = recorded.get("sample"), recorded.get("seed")
    if was_sample is None:
        if sample is not None:
            raise ResumeError(
                "the run being resumed checked every case; resume it without --sample"
            )
        return None, None
    if (sample is not None and sample != was_sample) or (seed is not None and seed != was_seed):
        raise ResumeError(
            f"the run being resumed sampled --sample {was_sample:g} --seed {was_seed}; "
            "resume it with the same sample (or without --sample/--seed)"
        )
    if not isinstance(was_seed, int):
        raise ResumeError(
            "the run being resumed recorded a sample without its seed; it cannot be resumed"
        )
    return float(was_sample), was_seed


def same_system(recorded: Mapping[str, Any], spec: SutSpec | None, repeat: int | None) -> None:
    """Checks a run is resumed with the system under test (and repeat) it started
    with: otherwise its cases would be checked against outputs of two systems.

    Raises:
        ResumeError: Another system, another repeat, or a run of a ``--variant`` pair.
    """

    if recorded.get("variant"):
        raise ResumeError(
            "the run being resumed is one of a --variant pair, which cannot be resumed; "
            "run the pair again"
        )
    now = masked_description(spec) if spec is not None else None
    was = recorded.get("sut")
    if was != now:
        raise ResumeError(
            f"the run being resumed ran {f'the system {was}' if was else 'no system under test'}"
            f", not {f'the system {now}' if now else 'none'}; resume it with the same system"
        )
    was_repeat = recorded.get("repeat")
    if spec is not None and isinstance(was_repeat, int) and was_repeat != (repeat or spec.repeat):
        raise ResumeError(
            f"the run being resumed ran the system {was_repeat} time(s) a case; "
            f"use --repeat {was_repeat}"
        )
