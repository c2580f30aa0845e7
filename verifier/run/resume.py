"""Resuming a run: what an interrupted run already stored is read back, not redone.

Rows are appended a chunk at a time, so a case is either stored whole or not at all;
a resumed run skips the stored cases (rebuilding their results from their rows for
the report and totals) and checks only the rest. Judge verdicts obtained before the
interruption are in the cache, so even a case whose rows were lost costs no new call.

A resumed run does its new work first (ADR 0068): it checks the cases nothing stored,
then reads every case back, in line order, for the summary and the reports. When the
cases file is the one the run started on, the lines up to the run's last stored one
are all stored, so the new work starts past them without reading them
(:func:`resume_point`); their ids, which a later line must not take again, are asked
of the store as later lines come (:class:`StoredPrefixIds`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier._internal.case_mapping import CaseMapping
from verifier._internal.seen_ids import SeenIds
from verifier.engine.stored_cases import last_stored_line, line_of_row, select
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


def same_choice(
    recorded: Mapping[str, Any], claims: list[str] | None, judge_mode: str | None
) -> None:
    """Checks a run is resumed with the claims it started with, and with judges off only
    if it started so: its stored cases are scored as they were checked.

    Raises:
        ResumeError: The resumed run checked other claims, or judged differently.
    """
    was = recorded.get("claims")
    if was != claims:
        hint = f"--claims {','.join(was)}" if was else "without --claims"
        raise ResumeError(f"the run being resumed checked other claims; resume it {hint}")
    if (recorded.get("judges") == "off") != (judge_mode == "off"):
        hint = "with" if recorded.get("judges") == "off" else "without"
        raise ResumeError(f"resume the run {hint} --judges off, as it started")


def resume_hint(store: GapStore, run_id: str, *, variants: bool) -> str:
    """What to add to the error that stopped a run which had begun: the run keeps its
    stored rows, and ``--resume RUN`` checks the rest (empty when no run was begun)."""
    if variants:  # as an interrupt says it: two runs, resumed by neither id alone
        return f"; runs {run_id}-* keep the rows already stored"
    try:
        record = store.run(run_id)
    except VerifierError:
        return ""  # the store cannot even be read: nothing sure to say about the run
    if record is None or record.status == "finished":
        return ""
    return f"; run {run_id} keeps the rows already stored: --resume {run_id} checks the rest"


def resume_point(store: GapStore, record: RunRecord, cases: Path, *, whole_file: bool) -> int:
    """The line past which a resumed run's new cases begin: every line up to it is
    stored, so the new work need not read it (0: read from the first line).

    Only a run over every line of the very file it started on (its recorded
    ``cases_sha256``) knows that: a sample or a shard leaves lines of the file
    unstored, and an edited file may have moved its cases.

    Args:
        store: The store holding the run.
        record: The run's record.
        cases: The cases file the run is resumed on.
        whole_file: Whether the run checks every line of it (no sample, no shard).
    """
    recorded = record.options.get("cases_sha256")
    if not whole_file or not isinstance(recorded, str):
        return 0
    try:
        with cases.open("rb") as handle:
            if hashlib.file_digest(handle, "sha256").hexdigest() != recorded:
                return 0
    except OSError:
        return 0  # the reading proper says what is wrong with the file
    return last_stored_line(store, record.run_id)


class StoredPrefixIds(SeenIds):
    """The ids a resumed run has taken, those of the lines it passed over unread included.

    A line past the resume point whose id a stored line took is a duplicate, as it was
    when the run started: the store is asked (through its ``(run_id, case_id)`` index)
    about each id the run meets, so the lines passed over are never read.

    Args:
        store: The store holding the run.
        run_id: The run.
        before: The resume point: ids stored on lines up to it are taken.
    """

    def __init__(self, store: GapStore, run_id: str, before: int) -> None:
        super().__init__()
        self._store, self._run_id, self._before = store, run_id, before

    def add(self, case_id: str) -> bool:
        if self._taken_before(case_id):
            return False
        return super().add(case_id)

    def _taken_before(self, case_id: str) -> bool:
        rows = select(
            self._store,
            "SELECT row_id, body FROM rows WHERE run_id = ? AND case_id = ?",
            (self._run_id, case_id),
        )
        # Every id a stored line took is taken, an unusable line's ``line-N`` included,
        # as the run that stored it counted them (``_case_ids.unused_id``).
        for row_id, _body in rows:
            line = line_of_row(str(row_id), self._run_id)
            if 0 < line <= self._before:
                return True
        return False


def resumed_mapping(mapping: CaseMapping | None, resumed: RunRecord | None) -> CaseMapping | None:
    """The log mapping a run reads with: a resumed run keeps the cutoff it started with
    (a window such as ``7d`` is not moved by resuming it later)."""
    if mapping is None or resumed is None or mapping.since is None:
        return mapping
    recorded = resumed.options.get("cases_mapping")
    since = recorded.get("since") if isinstance(recorded, Mapping) else None
    if not isinstance(since, str):
        return mapping
    return replace(mapping, since=dt.datetime.fromisoformat(since))
