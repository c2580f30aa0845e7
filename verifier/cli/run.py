"""``verifier run``: check a contract's claims against every case and store the rows.

The options are declared in ``_run_options``, the checks before the run in
``_run_inputs``, the parts around it in ``_run_parts`` and its last lines in
``_run_summary``; all of them, and every heavy module, are imported only when the
command runs, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any

import click

from verifier.cli._options import fail
from verifier.cli._run_options import run_options


@click.command("run")
@run_options
def run(
    contract: Path | None,
    cases_path: Path | None,
    store: str | None,
    fmt: str,
    out: Path | None,
    threshold: float | None,
    gate_path: Path | None,
    record_content: str | None,
    chunk_size: int,
    judge_mode: str | None,
    claim_ids: str | None,
    recordings: Path | None,
    concurrency: int,
    rpm: float | None,
    tpm: float | None,
    timeout: float,
    batch: bool,
    batch_poll: float,
    baseline: Path | None,
    resume_id: str | None,
    shard_text: str | None,
    run_id_option: str | None,
    finish_id: str | None,
    sample: float | None,
    seed: int | None,
    annotations: str,
    pr_comment: Path | None,
    against: str | None,
    sut_option: str | None,
    repeat: int | None,
    variant_options: tuple[str, ...],
    allow_outside: tuple[Path, ...],
    witness: Path | None,
) -> None:
    """Check CONTRACT's claims against every case and persist each result as a gap row.

    With a system under test (the contract's `sut:`, --sut or --variant) each case's
    input is run through it first and its output checked. When GITHUB_STEP_SUMMARY is
    set, a Markdown summary of the run is appended to it.
    """
    from verifier._internal.atomic import AtomicFile
    from verifier.cases import read_cases, sample_cases
    from verifier.cli._run_gate import gate_inputs, gated_writer, write_gate
    from verifier.cli._run_inputs import baseline_matches, check_inputs
    from verifier.cli._run_parts import (
        StdoutGuard,
        ci_sinks,
        count_lines,
        every_case,
        note,
        resume_hint,
        run_with_batch,
        same_choice,
        scope_lines,
    )
    from verifier.cli._run_shards import begin_shard, check_shard, in_shard
    from verifier.cli._run_summary import finish_run
    from verifier.cli._sut import run_variants_sync
    from verifier.engine.runner import RunOptions, new_run_id, run_sync
    from verifier.engine.stoppable import Terminated
    from verifier.errors import VerifierError
    from verifier.gaps.store import is_postgres_url, open_store, resolve_run_id
    from verifier.gaps.target import new_store_target
    from verifier.llm.limits import CallLimits
    from verifier.report.progress import ProgressReporter
    from verifier.run.assembly import Judges, Sut, assemble_run
    from verifier.run.baseline import join_baseline, read_baseline
    from verifier.sut import masked_description

    if finish_id is not None:
        if contract is not None:
            fail("--finish reads the run's contract from the store; give no CONTRACT")
        try:
            finish_target = new_store_target(store)
        except VerifierError as exc:
            fail(str(exc))
        # Imported here, as the gate's and a shard's ends below: a plain run needs none.
        from verifier.cli._run_shard_end import finish_command

        finish_command(
            finish_id,
            finish_target,
            fmt=fmt,
            out=out,
            pr_comment=pr_comment,
            against=against,
            witness=witness,
        )
    if contract is None:
        fail("give CONTRACT (or --finish RUN_ID to end a sharded run)")
    shard = check_shard(
        shard_text,
        run_id_option,
        resume_id,
        sample=sample,
        variants=bool(variant_options),
        gate=gate_path is not None,
    )
    inputs = check_inputs(
        contract,
        cases_path,
        judge_mode=judge_mode,  # type: ignore[arg-type]
        claim_ids=claim_ids,
        baseline=baseline,
        sut_option=sut_option,
        variant_options=variant_options,
        repeat=repeat,
        batch=batch,
        resume_id=resume_id,
        sample=sample,
        seed=seed,
        record_content=record_content,
        allow_outside=allow_outside,
    )
    loaded, sut_plan, cases_path = inputs.loaded, inputs.sut_plan, inputs.cases_path
    gate, cases_record = gate_inputs(gate_path, inputs, store, resuming=bool(resume_id))

    try:  # read before the run begins: a bad line refuses the run, naming it
        baseline_index = read_baseline(baseline) if baseline is not None else None
    except VerifierError as exc:
        fail(str(exc))
    matches = baseline_matches(loaded, baseline)

    def open_cases(after: int = 0, seen: Any = None) -> Any:
        stream = read_cases(cases_path, after=after, seen=seen)
        if shard is not None:
            stream = in_shard(stream, shard)
        if sample is not None and seed is not None:
            stream = sample_cases(stream, sample, seed)
        if baseline_index is None:
            return stream
        if matches is not None:
            matches.clear()  # a batch run reads the cases again
        return join_baseline(stream, baseline_index, matches)

    try:
        target = new_store_target(store)
    except VerifierError as exc:
        fail(str(exc))
    if shard is not None and not is_postgres_url(target):
        fail(f"--shard needs a PostgreSQL store (--store postgresql://...), not {target}")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY") or None
    if against is not None and pr_comment is None and step_summary is None:
        fail("--against compares for --pr-comment or the step summary; give --pr-comment FILE")
    witnessed: list[Any] = []  # the heads to append once the run's outputs are written
    if witness is not None:
        from verifier.cli._witness import append_witnessed, prepare_witness, to_witness

        prepare_witness(witness)

    # The report and comment appear whole when the run ends, or not at all: a run
    # stopped early (a bad --against, an interrupt) leaves the previous files as
    # they were, even when --against names the very file --out replaces.
    out_file = comment_file = None
    try:
        out_file = AtomicFile(out, "the report") if out else None
        comment_file = AtomicFile(pr_comment, "the PR comment") if pr_comment else None
    except VerifierError as exc:
        if out_file is not None:
            out_file.discard()
        fail(str(exc))
    # A Python system under test runs in this process: whatever it prints would land
    # in the report on stdout, so stdout is kept for the report and its prints go
    # to stderr.
    guard = StdoutGuard() if any(spec.python for spec, _ in sut_plan.specs) else None
    stream: IO[str] = out_file.stream if out_file else (guard.report if guard else sys.stdout)
    comment_stream = comment_file.stream if comment_file else None
    baseline_summary = None
    completed = False
    try:
        with open_store(target) as gap_store:
            sinks_of_ci = ci_sinks(
                loaded,
                gap_store,
                cases_path=inputs.cases_shown,
                annotations=annotations,
                step_summary=step_summary,
                comment_stream=comment_stream,
                against=against,
            )
            stored_in = gap_store.location  # a URL's password is not repeated
            progress = ProgressReporter()
            if resume_id:
                from verifier.run.resume import check_resumable, resumed_sample, same_system

                resume_id = resolve_run_id(
                    gap_store, resume_id, contract_id=loaded.contract.contract
                )
                resumed = check_resumable(gap_store, resume_id, loaded.sha256)
                sample, seed = resumed_sample(resumed.options, sample, seed)
                spec = sut_plan.specs[0][0] if sut_plan.specs else None
                same_system(resumed.options, spec, repeat)
                same_choice(resumed.options, inputs.claims, judge_mode)
            if sample is not None and seed is None:
                import secrets

                seed = secrets.randbelow(2**31)
            if sample is not None:
                click.echo(
                    f"sampling about {sample:.4g} of the cases with seed {seed} "
                    f"(--sample {sample:g} --seed {seed} picks the same cases again)",
                    err=True,
                )
            # A sample's size is known only once read; the bar then counts without a total.
            whole = sample is None and shard is None
            total = count_lines(cases_path) if progress.enabled and whole else None
            run_id = resume_id or run_id_option or new_run_id()
            new_first = None
            if resume_id:  # its new work first, past the lines it stored (ADR 0068)
                from verifier.run.resume import StoredPrefixIds, resume_point

                point = resume_point(gap_store, resumed, cases_path, whole_file=whole)
                seen = StoredPrefixIds(gap_store, run_id, point) if point else None
                new_first = open_cases(point, seen)
            if shard is not None:
                begin_shard(gap_store, shard, run_id, resume=bool(resume_id))
            limits = CallLimits(
                concurrency=concurrency,
                requests_per_minute=rpm,
                tokens_per_minute=tpm,
                timeout=timeout,
            )
            judges = Judges(mode=judge_mode, recordings=recordings, limits=limits)  # type: ignore[arg-type]
            record = {
                "cases": str(inputs.cases_shown),
                "format": fmt,
                "batch": batch,
                "repeat": repeat,
            }
            record.update(cases_record)
            if sample is not None:
                record.update(sample=sample, seed=seed)
            if inputs.claims is not None:
                record["claims"] = inputs.claims
            writer = gated_writer(fmt, stream, gate)  # type: ignore[arg-type]
            sinks = [writer, *sinks_of_ci]
            options = RunOptions(
                threshold=threshold,
                chunk_size=chunk_size,
                run_id=run_id,
                resume=bool(resume_id),
                options_record=record,
                record=inputs.record_policy,
                shard=shard,
            )
            try:
                if sut_plan.variants:
                    baseline_summary, summary = run_variants_sync(
                        sut_plan,
                        loaded,
                        gap_store,
                        open_cases(),
                        sinks=sinks,
                        progress=progress,
                        total=total,
                        judges=judges,
                        target=target,
                        options=options,
                        note=note,
                    )
                else:
                    sut = None
                    if sut_plan.specs:
                        spec, base_dir = sut_plan.specs[0]
                        record["sut"] = masked_description(spec)
                        record["repeat"] = repeat or spec.repeat
                        sut = Sut(spec, base_dir, repeat=repeat)
                    assembled = assemble_run(
                        loaded,
                        gap_store,
                        target=target,
                        judges=judges,
                        sut=sut,
                        options=options,
                        sinks=sinks,
                        progress=progress,
                        note=note,
                    )
                    runner = assembled.runner
                    phase = runner.model_phase
                    status = getattr(phase, "status", None)
                    if status is not None:
                        progress.set_status(status)
                    if batch:
                        summary = run_with_batch(
                            runner, phase, open_cases, target, batch_poll, total, new_first
                        )
                    else:
                        summary = run_sync(
                            runner, every_case(open_cases), total=total, new_first=new_first
                        )
            except KeyboardInterrupt as stop:
                which = f"runs {run_id}-*" if sut_plan.variants else f"run {run_id}"
                rest = "" if sut_plan.variants else f"; --resume {run_id} checks the rest"
                click.echo(f"interrupted: {which} keeps the rows already stored{rest}", err=True)
                sys.exit(143 if isinstance(stop, Terminated) else 130)
            except VerifierError as exc:
                # A store that filled up mid-run: say which run to resume once it has room.
                fail(f"{exc}{resume_hint(gap_store, run_id, variants=bool(sut_plan.variants))}")
            if shard is not None:
                completed = True
                for written in (out_file, comment_file):
                    if written is not None:
                        written.commit()
                from verifier.cli._run_shard_end import end_shard

                end_shard(gap_store, shard, summary, witness=witness)
            decision = None
            if gate is not None:
                from verifier.compare.gate import decide_run

                decision = decide_run(gate, gap_store, summary.run_id)
                write_gate(decision, fmt, stream, writer)
            if witness is not None:
                ended = [s.run_id for s in (baseline_summary, summary) if s is not None]
                witnessed = to_witness(gap_store, ended)
            completed = True
    except VerifierError as exc:
        fail(str(exc))
    finally:
        for written in (out_file, comment_file):
            if written is not None and not completed:
                written.discard()
        if guard is not None:
            guard.restore()
    for written in (out_file, comment_file):
        if written is not None:
            try:
                written.commit()
            except VerifierError as exc:
                fail(str(exc))
    for line in scope_lines(summary, inputs.claims):
        click.echo(line, err=True)
    if matches is not None and baseline_index is not None:
        click.echo(matches.line(baseline_index), err=True)
    if witness is not None:
        append_witnessed(witness, witnessed)
    finish_run(
        summary,
        baseline_summary,
        sut_plan=sut_plan,
        ci_sinks=sinks_of_ci,
        cases_path=inputs.cases_shown,
        stored_in=stored_in,
        out=out,
        gate=decision,
    )
