"""``verifier run``: check a contract's claims against every case and store the rows.

A translation: the options (declared in ``_run_options``) become one call of the
library's :func:`verifier.run_contract` (``--finish``: :func:`verifier.finish_sharded_run`),
and its result the output and exit code. The command's own checks are in
``_run_inputs``, its files and sinks in ``_run_outputs`` and its last lines in
``_run_summary``; all of them, and every heavy module, are imported only when the
command runs, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    from verifier.cli._run_parts import ci_checks, interrupted, note, python_sut, sample_option
    from verifier.cli._run_summary import end_run
    from verifier.errors import VerifierError
    from verifier.llm.limits import CallLimits
    from verifier.report.progress import ProgressReporter
    from verifier.run.api import run_contract
    from verifier.run.assembly import Judges
    from verifier.run.options import Batch, Resume

    args = RunArgs(**given)
    if args.finish_id is not None:  # imported here: a run that is not sharded needs none of it
        from verifier.cli._run_shard_end import finish_option

        finish_option(
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
    step_summary = ci_checks(args.against, args.pr_comment, args.witness)
    chosen = sample_option(args.sample, args.seed, resuming=args.resume_id is not None)
    baseline_unused(inputs, args.baseline)
    outputs = RunOutputs(args.out, args.pr_comment, python_sut=python_sut(inputs))
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
        interrupted(stop)
    except VerifierError as exc:
        fail(str(exc))
    finally:
        outputs.end(completed)
    end_run(
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
    from verifier.cli._run_parts import say_sample

    return outputs.sinks(
        args.fmt,
        args.gate_path is not None,
        inputs.loaded,
        inputs.cases_shown,
        annotations=args.annotations,
        step_summary=step_summary,
        against=args.against,
        begins=lambda: say_sample(chosen if args.resume_id is None else None),
    )
