"""What ``verifier run`` checks before it opens a store: the contract, the input files,
the systems under test and the options that only make sense together.

Each problem ends the command with one line and exit 2, before anything is written.
Imported only when ``run`` runs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

import click

from verifier.cli._options import EXIT_INVALID, fail
from verifier.cli._sut import SutPlan, sut_plan_of
from verifier.contract.load import LoadedContract, check_contract
from verifier.errors import VerifierError
from verifier.gaps.content import ContentMode, RecordPolicy

__all__ = ["RunInputs", "check_inputs"]


@dataclass(frozen=True)
class RunInputs:
    """What the checks established: the contract, its systems and its record policy."""

    loaded: LoadedContract
    sut_plan: SutPlan
    record_policy: RecordPolicy


def check_inputs(
    contract: Path,
    cases_path: Path,
    *,
    baseline: Path | None,
    sut_option: str | None,
    variant_options: tuple[str, ...],
    repeat: int | None,
    batch: bool,
    resume_id: str | None,
    sample: float | None,
    seed: int | None,
    record_content: str | None,
    allow_outside: tuple[Path, ...],
) -> RunInputs:
    """Loads the contract and checks the options of a run; exits 2 on the first problem.

    The contract's diagnostics are printed on stderr whether or not it loads.
    """
    loaded, diagnostics = check_contract(contract, allow=allow_outside)
    for diagnostic in diagnostics:
        click.echo(str(diagnostic), err=True)
    if loaded is None:
        sys.exit(EXIT_INVALID)
    for path, what in ((cases_path, "cases file"), (baseline, "baseline cases file")):
        if path is not None and path.is_dir():
            fail(f"{path}: is a directory, not a {what}")
        if path is not None and not path.is_file():
            fail(f"{path}: {what} not found")
    try:
        sut_plan = sut_plan_of(loaded, sut_option, variant_options, repeat)
    except VerifierError as exc:
        fail(str(exc))
    if sut_plan.specs:
        variants = bool(sut_plan.variants)
        conflicts = (
            ("--batch", batch),
            ("--baseline", baseline is not None and variants),
            ("--resume", bool(resume_id) and variants),
        )
        for flag, given in conflicts:
            if given:
                what = "--variant" if sut_plan.variants else "a system under test"
                fail(f"{flag} cannot be combined with {what}")

    if seed is not None and sample is None:
        fail("--seed chooses the sample of --sample; give --sample FRACTION too")
    record_policy = loaded.contract.record.policy()
    if record_content is not None:
        record_policy = replace(record_policy, content=cast("ContentMode", record_content))
    return RunInputs(loaded, sut_plan, record_policy)
