"""What ``verifier run`` checks before it calls the library: the contract (its
diagnostics printed), the input files, the systems named and the options that only
the command line has. The library checks the rest, before anything is written.

Each problem ends the command with one line and exit 2. Imported only when ``run`` runs.
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
from verifier.cli._sut import systems_of
from verifier.contract.load import LoadedContract, check_contract
from verifier.errors import VerifierError
from verifier.gaps.content import ContentMode, RecordPolicy
from verifier.run.assembly import Sut
from verifier.run.options import ShardPart, Variants

__all__ = ["RunInputs", "check_inputs", "shard_part"]


@dataclass(frozen=True)
class RunInputs:
    """What the checks established: the contract, the cases file (a copy of standard
    input or a pipe: ``cases_shown`` is the name given), the systems named, the record
    policy asked for (``None``: the contract's) and the claims chosen (``None``: all)."""

    loaded: LoadedContract
    cases_path: Path
    cases_shown: Path
    sut: Sut | None
    variants: Variants | None
    record_policy: RecordPolicy | None
    claims: list[str] | None


def shard_part(shard_text: str | None, run_id: str | None) -> ShardPart | None:
    """``--shard K/N`` (with ``--run-id``) as the library's option; exits 2 when it is not K/N."""
    if shard_text is None:
        return None
    from verifier.gaps.shards import Shard

    try:
        shard = Shard.parse(shard_text)
    except ValueError as exc:
        fail(f"--shard {exc}")
    return ShardPart(shard.index, shard.count, run_id)


def check_inputs(
    contract: Path,
    cases_path: Path | None,
    *,
    claim_ids: str | None,
    baseline: Path | None,
    sut_option: str | None,
    variant_options: tuple[str, ...],
    sample: float | None,
    seed: int | None,
    record_content: str | None,
    allow_outside: tuple[Path, ...],
) -> RunInputs:
    """Loads the contract and checks the inputs of a run; exits 2 on the first problem.

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
    cases_shown = cases_path
    try:
        if read_once(cases_path):
            cases_path = click.get_current_context().with_resource(readable_again(cases_path))
        spec = loaded.contract.cases
        check_cases_file(cases_path, shown=cases_shown, format=spec.format if spec else "jsonl")
        sut, variants = systems_of(loaded, sut_option, variant_options)
    except VerifierError as exc:
        fail(str(exc))
    if seed is not None and sample is None:
        fail("--seed chooses the sample of --sample; give --sample FRACTION too")
    policy = None
    if record_content is not None:
        content = cast("ContentMode", record_content)
        policy = replace(loaded.contract.record.policy(), content=content)
    claims = claim_ids.split(",") if claim_ids is not None else None
    return RunInputs(loaded, cases_path, cases_shown, sut, variants, policy, claims)


def baseline_unused(inputs: RunInputs, baseline: Path | None) -> None:
    """Says on stderr when ``--baseline`` is given but no claim reads a baseline."""
    from verifier.contract.selection import choose_claims
    from verifier.run.baseline import reads_baseline

    if baseline is None:
        return
    try:
        chosen = choose_claims(inputs.loaded, inputs.claims) if inputs.claims else inputs.loaded
    except VerifierError:
        return  # the run refuses the claims, saying why
    if not reads_baseline(chosen):
        click.echo(
            f"baseline: {baseline} is not used: the contract has no comparative claim that "
            "reads a baseline (one without `outputs`, or with outputs naming baseline.*)",
            err=True,
        )
