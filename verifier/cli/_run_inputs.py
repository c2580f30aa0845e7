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

from verifier._internal.case_source import read_once, readable_again
from verifier.cases import cases_beside, check_cases_file
from verifier.cli._options import EXIT_INVALID, fail
from verifier.cli._sut import SutPlan, sut_plan_of
from verifier.contract.load import LoadedContract, check_contract
from verifier.errors import VerifierError
from verifier.gaps.content import ContentMode, RecordPolicy
from verifier.run.assembly import Judges, RunMode, Sut, check_run
from verifier.run.baseline import BaselineMatches

__all__ = ["RunInputs", "baseline_matches", "check_inputs"]


@dataclass(frozen=True)
class RunInputs:
    """What the checks established: the contract (narrowed to ``--claims``), the cases
    file (a copy of standard input or a pipe: ``cases_shown`` is the name given), the
    systems, the record policy and the claims chosen (``None``: all)."""

    loaded: LoadedContract
    cases_path: Path
    cases_shown: Path
    sut_plan: SutPlan
    record_policy: RecordPolicy
    claims: list[str] | None


def check_inputs(
    contract: Path,
    cases_path: Path | None,
    *,
    judge_mode: RunMode | None,
    claim_ids: str | None,
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
    if cases_path is None:
        cases_path = cases_beside(contract)
        if not cases_path.is_file():
            fail(f"no cases: give --cases FILE, or put them in {cases_path} (the default)")
    for path, what in ((cases_path, "cases file"), (baseline, "baseline cases file")):
        if path is not None and path.is_dir():
            fail(f"{path}: is a directory, not a {what}")
        # A pipe or `<(jq ...)` is read like a file; `-` (standard input) only as cases.
        if path is not None and not (path.exists() or (path is cases_path and read_once(path))):
            fail(f"{path}: {what} not found")
    claims = claim_ids.split(",") if claim_ids is not None else None
    cases_shown = cases_path
    try:
        if read_once(cases_path):
            cases_path = click.get_current_context().with_resource(readable_again(cases_path))
        check_cases_file(cases_path, shown=cases_shown)
        sut_plan = sut_plan_of(loaded, sut_option, variant_options, repeat)
        suts: list[Sut | None] = [Sut(spec, base) for spec, base in sut_plan.specs] or [None]
        for sut in suts:
            chosen = check_run(loaded, Judges(mode=judge_mode), sut=sut, claims=claims)
    except VerifierError as exc:
        fail(str(exc))
    if batch and judge_mode == "off":
        fail("--batch sends judge requests; it cannot be combined with --judges off")
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
    chosen_ids = [str(c.id) for c in chosen.contract.claims] if claims is not None else None
    return RunInputs(chosen, cases_path, cases_shown, sut_plan, record_policy, chosen_ids)


def baseline_matches(loaded: LoadedContract, baseline: Path | None) -> BaselineMatches | None:
    """What counts the cases ``--baseline`` matches, or ``None`` when there is no
    baseline or no claim would read one (then said on stderr: the file is not used)."""
    if baseline is None:
        return None
    from verifier.contract.models import CompareClaim
    from verifier.engine.comparative import reads_baseline

    if any(isinstance(c, CompareClaim) and reads_baseline(c) for c in loaded.contract.claims):
        return BaselineMatches()
    click.echo(
        f"baseline: {baseline} is not used: the contract has no comparative claim that "
        "reads a baseline (one without `outputs`, or with outputs naming baseline.*)",
        err=True,
    )
    return None
