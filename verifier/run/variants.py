"""The systems under test of a run: none, one, or two variants compared, and the
two-variant run itself (each variant stored as its own run ``RUN_ID-NAME``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from verifier.cases import CaseLine
from verifier.contract.load import LoadedContract
from verifier.engine.ports import Progress, ReportSink
from verifier.engine.runner import Runner, RunOptions
from verifier.engine.stoppable import run_stoppable
from verifier.errors import SutError
from verifier.results import RunSummary
from verifier.run.assembly import Judges, Note, Sut, assemble_run, declared_sut, sut_stage_for
from verifier.run.options import Variants
from verifier.sut import masked_description

__all__ = ["run_variants_sync", "system_of"]


def system_of(
    loaded: LoadedContract,
    sut: Sut | None,
    variants: Variants | None,
    *,
    repeat: int | None,
    use_declared_sut: bool,
) -> tuple[Sut | None, Variants | None]:
    """The run's one system (given, else the contract's own) or its two variants, each
    with ``repeat`` (when given) overriding its calls per case.

    Raises:
        SutError: A system and variants together, or ``repeat`` with no system.
    """
    if variants is not None:
        if sut is not None:
            raise SutError("--sut and --variant exclude each other (each variant names its system)")
        if repeat is None:
            return None, variants
        return None, Variants(
            replace(variants.baseline, repeat=repeat), replace(variants.candidate, repeat=repeat)
        )
    if sut is None and use_declared_sut:
        sut = declared_sut(loaded)
    if sut is None:
        if repeat is not None:
            raise SutError("--repeat needs a system under test (`sut:` in the contract, or --sut)")
        return None, None
    return (replace(sut, repeat=repeat) if repeat is not None else sut), None


def run_variants_sync(
    variants: Variants,
    loaded: LoadedContract,
    store: Any,
    cases: Iterable[CaseLine],
    *,
    sinks: Sequence[ReportSink],
    progress: Progress | None,
    total: int | None,
    judges: Judges,
    target: str,
    options: RunOptions,
    note: Note,
) -> tuple[RunSummary | None, RunSummary]:
    """Both variants over ``cases``, each stored as run ``RUN_ID-NAME``: the baseline's
    summary (``None`` when every claim compares) and the candidate's.

    Raises:
        KeyboardInterrupt: Ctrl-C (or SIGTERM) stopped the runs; their rows are kept.
    """
    from verifier.sut.variants import run_variants, without_comparisons

    systems = (variants.baseline, variants.candidate)
    ids = tuple(f"{options.run_id}-{name}" for name in variants.names)
    keeps = (options.record or loaded.contract.record.policy()).keeps_replies
    stages = tuple(
        sut_stage_for(
            loaded, sut, judges, target=target, run_id=ids[i], note=note, keep_replies=keeps
        )
        for i, sut in enumerate(systems)
    )
    record = dict(options.options_record or {})

    def runner(contract: LoadedContract, index: int, **extra: Any) -> Runner:
        sut = systems[index]
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
                options_record={
                    **record,
                    "variant": sut.variant,
                    "sut": masked_description(sut.spec),
                },
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
