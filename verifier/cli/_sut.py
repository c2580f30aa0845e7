"""What ``verifier run`` does with a system under test: which systems, made how, and
the two-variant run. Imported only when ``run`` runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.contract.load import LoadedContract
from verifier.contract.sut_models import SutSpec
from verifier.engine.runner import Runner, RunOptions
from verifier.engine.stoppable import run_stoppable
from verifier.errors import SutError
from verifier.files import FileScope
from verifier.gaps.store import GapStore
from verifier.results import RunSummary
from verifier.run.assembly import Judges, Sut, assemble_run, sut_stage_for
from verifier.sut import masked_description
from verifier.sut.setup import (
    parse_sut_option,
    parse_variant_option,
)


@dataclass(frozen=True)
class SutPlan:
    """The systems of a run: none, one (``specs``), or two variants (``variants``),
    each with where its relative paths are resolved from: the contract's confined
    scope, or the current directory for a system named on the command line."""

    specs: tuple[tuple[SutSpec, FileScope], ...] = ()
    variants: tuple[tuple[str, SutSpec], ...] = ()
    repeat: int | None = None


def sut_plan_of(
    loaded: LoadedContract,
    sut_option: str | None,
    variants: tuple[str, ...],
    repeat: int | None,
) -> SutPlan:
    """The run's systems from the contract and ``--sut`` / ``--variant`` / ``--repeat``.

    Raises:
        SutError: A bad spec or a combination that makes no sense.
    """
    declared = loaded.contract.sut
    if variants:
        if sut_option:
            raise SutError("--sut and --variant exclude each other (each variant names its system)")
        if len(variants) != 2:
            raise SutError(
                f"--variant needs exactly two variants (baseline, candidate), got {len(variants)}"
            )
        named = tuple(parse_variant_option(text, base=declared) for text in variants)
        if named[0][0] == named[1][0]:
            raise SutError(f"--variant: both variants are named {named[0][0]!r}")
        specs = tuple((spec, FileScope.anywhere(Path.cwd())) for _, spec in named)
        return SutPlan(specs, named, repeat)
    if sut_option:
        typed = parse_sut_option(sut_option, base=declared)
        return SutPlan(((typed, FileScope.anywhere(Path.cwd())),), (), repeat)
    if declared is not None:
        return SutPlan(((declared, loaded.files),), (), repeat)
    if repeat is not None:
        raise SutError("--repeat needs a system under test (`sut:` in the contract, or --sut)")
    return SutPlan()


def run_variants_sync(
    plan: SutPlan,
    loaded: LoadedContract,
    store: GapStore,
    cases: Any,
    *,
    sinks: list[Any],
    progress: Any,
    total: int | None,
    judges: Judges,
    target: str,
    options: RunOptions,
    note: Callable[[str], None],
) -> tuple[RunSummary | None, RunSummary]:
    """Both variants over ``cases``, each stored as run ``RUN_ID-NAME``."""
    from verifier.sut.variants import run_variants, without_comparisons

    (name_a, _), (name_b, _) = plan.variants
    base_dir = plan.specs[0][1]
    run_id = options.run_id
    ids = (f"{run_id}-{name_a}", f"{run_id}-{name_b}")
    stages = tuple(
        sut_stage_for(
            loaded,
            Sut(spec, base_dir, repeat=plan.repeat, variant=name),
            judges,
            target=target,
            run_id=ids[index],
            note=note,
            keep_replies=(options.record or loaded.contract.record.policy()).keeps_replies,
        )
        for index, (name, spec) in enumerate(plan.variants)
    )
    record = dict(options.options_record or {})

    def runner(contract: LoadedContract, index: int, **extra: Any) -> Runner:
        name, spec = plan.variants[index]
        return assemble_run(
            contract,
            store,
            target=target,
            judges=judges,
            options=RunOptions(
                threshold=options.threshold,
                chunk_size=options.chunk_size,
                run_id=ids[index],
                record=options.record,
                options_record={**record, "variant": name, "sut": masked_description(spec)},
            ),
            note=note,
            **extra,
        ).runner

    reduced = without_comparisons(loaded)
    baseline = runner(reduced, 0) if reduced is not None else None
    candidate = runner(loaded, 1, sinks=sinks, progress=progress)

    async def both() -> tuple[RunSummary | None, RunSummary]:
        return await run_variants(
            cases,
            stages=(stages[0], stages[1]),
            baseline=baseline,
            candidate=candidate,
            chunk_size=options.chunk_size,
            total=total,
        )

    return run_stoppable(both())
