"""``verifier run``: check a contract's claims against every case and store the rows.

A translation: the options (declared in ``_run_options``) become one call of the
library's :func:`verifier.run_contract` (``--finish``: :func:`verifier.finish_sharded_run`),
and its result the output and exit code. The command's own checks are in
``_run_inputs``, its files and sinks in ``_run_outputs`` and its last lines in
``_run_summary``; all of them, and every heavy module, are imported only when the
command runs, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click

from verifier.cli._options import fail
from verifier.cli._run_options import run_options


@dataclass(frozen=True)
class RunArgs:
    """The options of ``verifier run`` as click gives them (declared in ``_run_options``)."""

    contract: Path | None
    cases_path: Path | None
    store: str | None
    fmt: str
    out: Path | None
    threshold: float | None
    gate_path: Path | None
    record_content: str | None
    chunk_size: int
    judge_mode: str | None
    claim_ids: str | None
    recordings: Path | None
    concurrency: int
    rpm: float | None
    tpm: float | None
    timeout: float
    batch: bool
    batch_poll: float
    baseline: Path | None
    resume_id: str | None
    shard_text: str | None
    run_id_option: str | None
    finish_id: str | None
    sample: float | None
    seed: int | None
    annotations: str
    pr_comment: Path | None
    against: str | None
    sut_option: str | None
    repeat: int | None
    variant_options: tuple[str, ...]
    allow_outside: tuple[Path, ...]
    witness: Path | None


@click.command("run")
@run_options
def run(**given: Any) -> None:
    """Check CONTRACT's claims against every case and persist each result as a gap row.

    With a system under test (the contract's `sut:`, --sut or --variant) each case's
    input is run through it first and its output checked. When GITHUB_STEP_SUMMARY is
    set, a Markdown summary of the run is appended to it.
    """
    from verifier.cli._run_inputs import baseline_unused, check_inputs, shard_part
    from verifier.cli._run_outputs import RunOutputs
    from verifier.cli._run_parts import note
    from verifier.errors import VerifierError
    from verifier.llm.limits import CallLimits
    from verifier.report.progress import ProgressReporter
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges
    from verifier.run.options import Batch, Resume

    args = RunArgs(**given)

    if args.finish_id is not None:
        _finish(
            args.finish_id,
            args.contract,
            args.store,
            args.fmt,
            args.out,
            args.pr_comment,
            args.against,
            args.witness,
        )
    if args.contract is None:
        fail("give CONTRACT (or --finish RUN_ID to end a sharded run)")
    shard = shard_part(args.shard_text, args.run_id_option)
    inputs = check_inputs(
        args.contract,
        args.cases_path,
        claim_ids=args.claim_ids,
        baseline=args.baseline,
        sut_option=args.sut_option,
        variant_options=args.variant_options,
        sample=args.sample,
        seed=args.seed,
        record_content=args.record_content,
        allow_outside=args.allow_outside,
    )
    step_summary = _ci_checks(args.against, args.pr_comment, args.witness)
    chosen = _sample(args.sample, args.seed, resuming=args.resume_id is not None)
    baseline_unused(inputs, args.baseline)
    outputs = RunOutputs(args.out, args.pr_comment, python_sut=_python_sut(inputs))
    limits = CallLimits(args.concurrency, args.rpm, args.tpm, timeout=args.timeout)
    judges = Judges(mode=args.judge_mode, recordings=args.recordings, limits=limits)  # type: ignore[arg-type]
    completed = False
    try:
        result = run_contract(
            inputs.loaded,
            inputs.cases_path,
            store=args.store,
            judges=judges,
            claims=inputs.claims,
            sut=inputs.sut,
            variants=inputs.variants,
            repeat=args.repeat,
            threshold=args.threshold,
            record=inputs.record_policy,
            run_id=args.run_id_option if shard is None else None,
            resume=Resume(args.resume_id) if args.resume_id is not None else None,
            sample=chosen,
            shard=shard,
            batch=Batch(poll=args.batch_poll) if args.batch else None,
            gate=args.gate_path,
            baseline=args.baseline,
            chunk_size=args.chunk_size,
            sinks=_sinks(args, inputs, outputs, step_summary, chosen),
            progress=ProgressReporter(),
            keep_cases=False,
            options_record={
                "cases": str(inputs.cases_shown),
                "format": args.fmt,
                "batch": args.batch,
                "repeat": args.repeat,
            },
            note=note,
            allow_outside=args.allow_outside,
        )
        outputs.write_gate(result.gate, args.fmt)
        completed = True
    except KeyboardInterrupt as stop:
        _interrupted(stop)
    except VerifierError as exc:
        fail(str(exc))
    finally:
        outputs.end(completed)
    _ended(
        result,
        inputs,
        resumed=args.resume_id is not None,
        out=args.out,
        witness=args.witness,
        store=args.store,
        ci=outputs.ci,
    )


def _sinks(args: RunArgs, inputs: Any, outputs: Any, step_summary: str | None, chosen: Any) -> Any:
    """The run's report writers and CI sinks, made over the open store."""
    return outputs.sinks(
        args.fmt,
        args.gate_path is not None,
        inputs.loaded,
        inputs.cases_shown,
        annotations=args.annotations,
        step_summary=step_summary,
        against=args.against,
        begins=lambda: _say_sample(chosen if args.resume_id is None else None),
    )


def _finish(
    finish_id: str,
    contract: Path | None,
    store: str | None,
    fmt: str,
    out: Path | None,
    pr_comment: Path | None,
    against: str | None,
    witness: Path | None,
) -> NoReturn:
    """``--finish RUN``: ends a sharded run (no CONTRACT) and exits."""
    from verifier.cli._run_shard_end import finish_command
    from verifier.errors import VerifierError
    from verifier.gaps.target import new_store_target

    if contract is not None:
        fail("--finish reads the run's contract from the store; give no CONTRACT")
    try:
        target = new_store_target(store)
    except VerifierError as exc:
        fail(str(exc))
    finish_command(
        finish_id, target, fmt=fmt, out=out, pr_comment=pr_comment, against=against, witness=witness
    )


def _ci_checks(against: str | None, pr_comment: Path | None, witness: Path | None) -> str | None:
    """The step summary file (``GITHUB_STEP_SUMMARY``), after checking ``--against`` has
    something to compare for and the witness file can be appended to; exits 2 if not."""
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY") or None
    if against is not None and pr_comment is None and step_summary is None:
        fail("--against compares for --pr-comment or the step summary; give --pr-comment FILE")
    if witness is not None:
        from verifier.cli._witness import prepare_witness

        prepare_witness(witness)
    return step_summary


def _sample(fraction: float | None, seed: int | None, *, resuming: bool) -> Any:
    """``--sample``/``--seed`` as the library's option: a new run's seed chosen now (a
    resumed run goes on with its own)."""
    from verifier.errors import VerifierError
    from verifier.run.options import Sample

    try:
        chosen = Sample(fraction, seed) if fraction is not None else None
    except VerifierError as exc:
        fail(str(exc))
    return chosen.seeded() if chosen is not None and not resuming else chosen


def _interrupted(stop: KeyboardInterrupt) -> NoReturn:
    """Says which run keeps the rows an interrupt left, and exits 130 (143: SIGTERM)."""
    from verifier.engine.stoppable import Terminated

    notes = getattr(stop, "__notes__", None)
    if not notes:
        raise stop
    click.echo(f"interrupted: {notes[-1]}", err=True)
    sys.exit(143 if isinstance(stop, Terminated) else 130)


def _say_sample(sample: Any) -> None:
    """Says which sample the run checks, and how to check it again."""
    if sample is None:
        return
    click.echo(
        f"sampling about {sample.fraction:.4g} of the cases with seed {sample.seed} "
        f"(--sample {sample.fraction:g} --seed {sample.seed} picks the same cases again)",
        err=True,
    )


def _python_sut(inputs: Any) -> bool:
    """Whether a Python system under test runs in this process (its prints kept off stdout)."""
    variants = inputs.variants
    systems = [variants.baseline, variants.candidate] if variants else [inputs.sut]
    specs = [s.spec for s in systems if s is not None] or [inputs.loaded.contract.sut]
    return any(spec is not None and spec.python for spec in specs)


def _ended(
    result: Any,
    inputs: Any,
    *,
    resumed: bool,
    out: Path | None,
    witness: Path | None,
    store: str | None,
    ci: list[Any],
) -> NoReturn:
    """The run's last lines on stderr, its witness, and its exit code."""
    from verifier.cli._run_parts import scope_lines
    from verifier.cli._run_summary import finish_run
    from verifier.gaps.target import store_target

    if resumed and result.sample is not None:  # the sample it began with
        _say_sample(result.sample)
    if result.shard is not None:
        from verifier.cli._run_shard_end import end_shard

        end_shard(result.shard, result.store, store_target(store), witness=witness)
    for line in scope_lines(result.summary, inputs.claims and list(result.claims or ())):
        click.echo(line, err=True)
    line = result.baseline_line()
    if line is not None:
        click.echo(line, err=True)
    if witness is not None:
        from verifier.cli._witness import append_witnessed, to_witness
        from verifier.gaps.store import open_store

        ended = [s.run_id for s in (result.baseline_summary, result.summary) if s is not None]
        with open_store(store_target(store)) as gap_store:
            witnessed = to_witness(gap_store, ended)
        append_witnessed(witness, witnessed)
    finish_run(
        result.summary,
        result.baseline_summary,
        variants=inputs.variants.names if inputs.variants else None,
        ci_sinks=ci,
        cases_path=inputs.cases_shown,
        stored_in=result.store,
        out=out,
        gate=result.gate,
    )
