"""What ``verifier run`` does with a system under test: which systems, made how, and
the two-variant run. Kept out of ``cli.py`` so the command stays readable; imported
only when ``run`` is."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from verifier.contract.load import LoadedContract
from verifier.contract.sut_models import SutSpec
from verifier.gaps.store import GapStore
from verifier.llm.limits import CallLimits
from verifier.results import RunSummary
from verifier.runner import Runner, RunOptions
from verifier.sut import masked_description
from verifier.sut._types import SutError
from verifier.sut.setup import (
    make_stage,
    model_access,
    parse_sut_option,
    parse_variant_option,
)
from verifier.sut.stage import SutStage


@dataclass(frozen=True)
class SutPlan:
    """The systems of a run: none, one (``specs``), or two variants (``variants``),
    each with the directory its relative paths are resolved from."""

    specs: tuple[tuple[SutSpec, Path], ...] = ()
    variants: tuple[tuple[str, SutSpec], ...] = ()
    repeat: int | None = None


@dataclass(frozen=True)
class ModelChoice:
    """The command line's choices for reaching models: mode, recordings, store, limits."""

    mode: str | None
    recordings: Path | None
    target: str
    limits: CallLimits


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
        specs = tuple((spec, Path.cwd()) for _, spec in named)
        return SutPlan(specs, named, repeat)
    if sut_option:
        return SutPlan(((parse_sut_option(sut_option, base=declared), Path.cwd()),), (), repeat)
    if declared is not None:
        return SutPlan(((declared, loaded.base_dir),), (), repeat)
    if repeat is not None:
        raise SutError("--repeat needs a system under test (`sut:` in the contract, or --sut)")
    return SutPlan()


def sut_stage_for(
    spec: SutSpec,
    base_dir: Path,
    choice: ModelChoice,
    loaded: LoadedContract,
    run_id: str,
    repeat: int | None,
    variant: str | None,
) -> SutStage:
    """The stage producing a run's outputs with ``spec``'s system (``repeat`` overrides
    the spec's own)."""
    access, why = model_access(
        spec,
        contract_path=loaded.path,
        mode=choice.mode,  # type: ignore[arg-type]
        recordings=choice.recordings,
        target=choice.target,
        limits=choice.limits,
        run_id=run_id,
        store_replies=not loaded.contract.record.redact,
    )
    if why:
        click.echo(f"note: {why} (pass --judges live to call it)", err=True)
    return make_stage(
        spec,
        base_dir=base_dir,
        access=access,
        repeat=repeat,
        variant=variant,
        contract_dir=loaded.base_dir,
    )


def run_variants_sync(
    plan: SutPlan,
    loaded: LoadedContract,
    store: GapStore,
    cases: Any,
    *,
    sinks: list[Any],
    progress: Any,
    total: int | None,
    choice: ModelChoice,
    options: RunOptions,
    run_id: str,
    judge_phase: Any,
) -> tuple[RunSummary | None, RunSummary]:
    """Both variants over ``cases``, each stored as run ``RUN_ID-NAME``."""
    from verifier.sut.variants import run_variants, without_comparisons

    (name_a, spec_a), (name_b, spec_b) = plan.variants
    base_dir = plan.specs[0][1]
    ids = (f"{run_id}-{name_a}", f"{run_id}-{name_b}")
    stages = (
        sut_stage_for(spec_a, base_dir, choice, loaded, ids[0], plan.repeat, name_a),
        sut_stage_for(spec_b, base_dir, choice, loaded, ids[1], plan.repeat, name_b),
    )
    record = dict(options.options_record or {})

    def runner(contract: LoadedContract, index: int, **extra: Any) -> Runner:
        name, spec = plan.variants[index]
        phase, mode = judge_phase(contract, ids[index])
        return Runner(
            contract,
            store,
            model_phase=phase,
            options=RunOptions(
                threshold=options.threshold,
                chunk_size=options.chunk_size,
                run_id=ids[index],
                record=options.record,
                options_record={
                    **record,
                    "judges": mode,
                    "variant": name,
                    "sut": masked_description(spec),
                },
            ),
            **extra,
        )

    reduced = without_comparisons(loaded)
    baseline = runner(reduced, 0) if reduced is not None else None
    candidate = runner(loaded, 1, sinks=sinks, progress=progress)

    async def both() -> tuple[RunSummary | None, RunSummary]:
        return await run_variants(
            cases,
            stages=stages,
            baseline=baseline,
            candidate=candidate,
            chunk_size=options.chunk_size,
            total=total,
        )

    return asyncio.run(both())
