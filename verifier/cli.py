"""The ``verifier`` command line.

Exit codes: 0 every case passed (or the check/audit found nothing); 1 a case failed or
errored (or audit found an integrity problem); 2 invalid contract, cases or usage.
Heavy modules are imported inside commands so ``verifier --help`` starts fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NoReturn, cast

import click
from click.core import ParameterSource

from verifier._cli_group import DefaultCommandGroup
from verifier._cli_output import OutputFaultGroup, fail_line
from verifier._cli_purge import purge_command
from verifier._cli_types import FiniteFloatRange, ProviderChoice
from verifier._terminal import printable, printable_line
from verifier.integrations.promptfoo_cli import promptfoo_import_command

DEFAULT_STORE = ".verifier/gaps.db"
EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


_STORE_OPTION = click.option(
    "--store",
    default=None,
    help=f"Gap-row store: a SQLite file or a postgresql:// URL.  [default: {DEFAULT_STORE}]",
)


def _single_judge_options(modes: tuple[str, ...]) -> Callable[[Any], Any]:
    """The options naming the one judge of ``evaluate`` and ``serve``, and its mode."""
    options = (
        click.option(
            "--provider",
            type=ProviderChoice(),
            default=None,
            help="Judge provider (with --model).",
        ),
        click.option("--model", default=None, help="The judge's exact, pinned model id."),
        click.option(
            "--base-url", default=None, help="Judge endpoint (OpenAI-compatible servers)."
        ),
        click.option(
            "--max-tokens",
            type=click.IntRange(1, 128_000),
            default=None,
            help="The judge's max_tokens.  [default: 1024]",
        ),
        click.option(
            "--config",
            "config_path",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="YAML file whose `judges:` mapping declares judges as contracts do.",
        ),
        click.option("--judge", "judge_name", default=None, help="The judge of --config to use."),
        click.option(
            "--judges",
            "judge_mode",
            type=click.Choice(list(modes)),
            default=None,
            help="As for `verifier run`.  "
            "[default: live when the judge's API key is set, else replay]",
        ),
        click.option(
            "--recordings",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="Recorded judge verdicts (JSONL).",
        ),
    )

    def apply(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def _fail(message: str, code: int = EXIT_INVALID) -> NoReturn:
    fail_line(message, code)


def _store_target(store: str | None) -> str:
    """The store a command uses: ``--store``, else ``$VERIFIER_STORE``, else the default."""
    return store or os.environ.get("VERIFIER_STORE") or DEFAULT_STORE


def _existing_store(store: str | None) -> str:
    """The store a reading command uses, which must already exist.

    A missing SQLite file, or an empty one (which SQLite would silently turn into a
    new store), is refused before anything opens it: an audit or report of a mistyped
    path must fail rather than report an empty record as fine.
    """
    from verifier.gaps.side_tables import sqlite_path

    target = _store_target(store)
    path = sqlite_path(target)
    if path is not None:
        file = Path(path)
        if not file.is_file():
            _fail(f"{path}: no store found (run `verifier run` first or pass --store)")
        if file.stat().st_size == 0:
            _fail(f"{path}: the file is empty, not a gap store (run `verifier run` first)")
    return target


@click.group(
    cls=OutputFaultGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="verifier", prog_name="verifier")
@click.option(
    "--log-format",
    type=click.Choice(["auto", "console", "json"]),
    default="auto",
    show_default=True,
    help="Log lines on stderr: readable, or JSON lines (the default when CI is set).",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
)
def main(log_format: str, log_level: str) -> None:
    """Verify what LLM systems produce against YAML contracts of claims."""
    from verifier.logs import configure_logging

    configure_logging(log_format, log_level)  # type: ignore[arg-type]


_ANNOTATIONS_OPTION = click.option(
    "--annotations",
    type=click.Choice(["auto", "github", "none"]),
    default="auto",
    show_default=True,
    help="GitHub annotations (on stderr) at the contract lines concerned; "
    "auto: github when GITHUB_ACTIONS=true.",
)


_ALLOW_OUTSIDE_OPTION = click.option(
    "--allow-outside",
    "allow_outside",
    multiple=True,
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Let the contract name files (schema_file, prompt, template_file, cwd) under DIR "
    "too; by default they must lie in the contract's folder or below.",
)


def _annotating(annotations: str) -> bool:
    return annotations == "github" or (
        annotations == "auto" and os.environ.get("GITHUB_ACTIONS") == "true"
    )


@main.command()
@click.argument("contracts", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--store",
    default=None,
    help="Store holding judge calibrations (SQLite file or postgresql:// URL).  "
    f"[default: {DEFAULT_STORE}]",
)
@_ANNOTATIONS_OPTION
@_ALLOW_OUTSIDE_OPTION
def check(
    contracts: tuple[Path, ...],
    store: str | None,
    annotations: str,
    allow_outside: tuple[Path, ...],
) -> None:
    """Validate and lint CONTRACTS; print every problem as FILE:LINE:COL: message."""
    from verifier.compare.calibration_store import CalibrationCheck
    from verifier.contract.load import check_contract

    calibrations = CalibrationCheck(
        _store_target(store),
        note=lambda text: click.echo(f"note: {text}", err=True),
    )
    annotate = _annotating(annotations)

    def report(diagnostic: Any) -> None:
        click.echo(str(diagnostic))
        if annotate:
            from verifier.ci.annotations import diagnostic_command

            click.echo(diagnostic_command(diagnostic), err=True)

    problems = 0
    for path in contracts:
        loaded, diagnostics = check_contract(path, allow=allow_outside)
        for diagnostic in diagnostics:
            report(diagnostic)
        problems += sum(1 for d in diagnostics if d.severity == "error")
        if loaded is not None:
            for warning in calibrations.warnings(loaded):
                report(warning)
            contract = loaded.contract
            click.echo(
                printable_line(
                    f"{path}: ok: {contract.contract} v{contract.version}, "
                    f"{len(contract.claims)} claims"
                )
            )
    if problems:
        click.echo(f"{problems} problem{'s' if problems != 1 else ''} found", err=True)
        sys.exit(EXIT_INVALID)


def _count_lines(path: Path) -> int | None:
    try:
        with path.open("rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return None


@main.command()
@click.argument("contract", type=click.Path(path_type=Path))
@click.option(
    "--cases",
    "cases_path",
    required=True,
    type=click.Path(path_type=Path),
    help="JSONL file of cases.",
)
@_STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["console", "json", "junit", "markdown"]),
    default="console",
    show_default=True,
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the report here, not stdout.",
)
@click.option(
    "--threshold",
    type=FiniteFloatRange(0, 1),
    default=None,
    help="Case pass threshold (overrides the contract).",
)
@click.option(
    "--record-content",
    type=click.Choice(["full", "hashes", "none"]),
    default=None,
    help="What the store keeps of each case: its content, only its hash, or neither "
    "(overrides the contract's record.content; its redact and max_bytes still apply).",
)
@click.option(
    "--chunk-size", type=click.IntRange(1, 100_000), default=500, show_default=True, hidden=True
)
@click.option(
    "--judges",
    "judge_mode",
    type=click.Choice(["live", "replay", "record"]),
    default=None,
    help="live: cache, then call; replay: recorded verdicts only; record: call and record. "
    "[default: live when the judges' API key is set, else replay]",
)
@click.option(
    "--recordings",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Recorded judge verdicts (JSONL).  [default: NAME.recordings.jsonl beside the contract]",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 512),
    default=8,
    show_default=True,
    help="Model calls in flight (judges and a prompt system under test together).",
)
@click.option(
    "--rpm",
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    help="Judge requests per minute.",
)
@click.option(
    "--tpm",
    type=FiniteFloatRange(min=0, min_open=True),
    default=None,
    help="Judge input tokens per minute.",
)
@click.option(
    "--timeout",
    type=FiniteFloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    help="Seconds per judge call.",
)
@click.option(
    "--batch",
    is_flag=True,
    help="Send every judge request of the run as one Message Batch (cheaper, slower).",
)
@click.option("--batch-poll", type=FiniteFloatRange(min=0), default=10.0, hidden=True)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Cases of a baseline run, joined by id, for comparative claims.",
)
@click.option(
    "--resume",
    "resume_id",
    default=None,
    metavar="RUN_ID",
    help="Finish an interrupted run: stored cases are kept, only the rest are checked.",
)
@click.option(
    "--sample",
    type=FiniteFloatRange(0, 1, min_open=True),
    default=None,
    metavar="FRACTION",
    help="Check a reproducible random sample of about FRACTION of the cases "
    "(e.g. 0.05 of production traffic); which cases depends only on --seed and case ids.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed of --sample; the same seed picks the same cases.  [default: a random one, "
    "printed and recorded with the run]",
)
@_ANNOTATIONS_OPTION
@click.option(
    "--pr-comment",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also write a pull-request comment body (Markdown) here.",
)
@click.option(
    "--against",
    default=None,
    metavar="BASELINE",
    help="Baseline for --pr-comment and the step summary: a JSON report file "
    "(--format json) or a run id in the store.",
)
@click.option(
    "--sut",
    "sut_option",
    default=None,
    metavar="SPEC",
    help="Produce each case's output with this system instead of reading it: "
    "exec:COMMAND, python:MODULE:FUNCTION or a YAML mapping of the contract's `sut:` block "
    "(overrides the contract's).",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 100),
    default=None,
    help="Runs of the system per case; every output goes to `runs` (consistency claims). "
    "[default: the contract's sut.repeat, else 1]",
)
@click.option(
    "--variant",
    "variant_options",
    multiple=True,
    metavar="NAME=SPEC",
    help="Give twice: both systems run on every case, each stored as its own run; the "
    "second is compared against the first (pairwise/similarity claims, verifier compare).",
)
@_ALLOW_OUTSIDE_OPTION
def run(
    contract: Path,
    cases_path: Path,
    store: str | None,
    fmt: str,
    out: Path | None,
    threshold: float | None,
    record_content: str | None,
    chunk_size: int,
    judge_mode: str | None,
    recordings: Path | None,
    concurrency: int,
    rpm: float | None,
    tpm: float | None,
    timeout: float,
    batch: bool,
    batch_poll: float,
    baseline: Path | None,
    resume_id: str | None,
    sample: float | None,
    seed: int | None,
    annotations: str,
    pr_comment: Path | None,
    against: str | None,
    sut_option: str | None,
    repeat: int | None,
    variant_options: tuple[str, ...],
    allow_outside: tuple[Path, ...],
) -> None:
    """Check CONTRACT's claims against every case and persist each result as a gap row.

    With a system under test (the contract's `sut:`, --sut or --variant) each case's
    input is run through it first and its output checked. When GITHUB_STEP_SUMMARY is
    set, a Markdown summary of the run is appended to it.
    """
    from dataclasses import replace

    from verifier._cli_sut import run_variants_sync, sut_plan_of
    from verifier.cases import join_baseline, read_cases, sample_cases
    from verifier.contract.load import check_contract
    from verifier.errors import VerifierError
    from verifier.gaps.content import ContentMode
    from verifier.gaps.store import open_store
    from verifier.llm.limits import CallLimits
    from verifier.report import make_writer
    from verifier.report.console import ProgressReporter
    from verifier.runner import RunOptions, new_run_id, run_sync
    from verifier.session import Judges, Sut, assemble_run
    from verifier.sut import masked_description

    loaded, diagnostics = check_contract(contract, allow=allow_outside)
    for diagnostic in diagnostics:
        click.echo(str(diagnostic), err=True)
    if loaded is None:
        sys.exit(EXIT_INVALID)
    for path, what in ((cases_path, "cases file"), (baseline, "baseline cases file")):
        if path is not None and path.is_dir():
            _fail(f"{path}: is a directory, not a {what}")
        if path is not None and not path.is_file():
            _fail(f"{path}: {what} not found")
    try:
        sut_plan = sut_plan_of(loaded, sut_option, variant_options, repeat)
    except VerifierError as exc:
        _fail(str(exc))
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
                _fail(f"{flag} cannot be combined with {what}")

    if seed is not None and sample is None:
        _fail("--seed chooses the sample of --sample; give --sample FRACTION too")
    record_policy = loaded.contract.record.policy()
    if record_content is not None:
        record_policy = replace(record_policy, content=cast("ContentMode", record_content))

    def open_cases() -> Any:
        stream = read_cases(cases_path)
        if sample is not None and seed is not None:
            stream = sample_cases(stream, sample, seed)
        return join_baseline(stream, baseline) if baseline is not None else stream

    target = _store_target(store)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY") or None
    if against is not None and pr_comment is None and step_summary is None:
        _fail("--against compares for --pr-comment or the step summary; give --pr-comment FILE")
    from verifier._atomic import AtomicFile

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
        _fail(str(exc))
    # A Python system under test runs in this process: whatever it prints would land
    # in the report on stdout, so stdout is kept for the report and its prints go
    # to stderr.
    guard = _StdoutGuard() if any(spec.python for spec, _ in sut_plan.specs) else None
    stream: IO[str] = out_file.stream if out_file else (guard.report if guard else sys.stdout)
    comment_stream = comment_file.stream if comment_file else None
    baseline_summary = None
    completed = False
    try:
        with open_store(target) as gap_store:
            ci_sinks = _ci_sinks(
                loaded,
                gap_store,
                cases_path=cases_path,
                annotations=annotations,
                step_summary=step_summary,
                comment_stream=comment_stream,
                against=against,
            )
            stored_in = gap_store.location  # a URL's password is not repeated
            progress = ProgressReporter()
            if resume_id:
                from verifier.resume import check_resumable, resumed_sample, same_system

                resumed = check_resumable(gap_store, resume_id, loaded.sha256)
                sample, seed = resumed_sample(resumed.options, sample, seed)
                spec = sut_plan.specs[0][0] if sut_plan.specs else None
                same_system(resumed.options, spec, repeat)
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
            total = _count_lines(cases_path) if progress.enabled and sample is None else None
            run_id = resume_id or new_run_id()
            limits = CallLimits(
                concurrency=concurrency,
                requests_per_minute=rpm,
                tokens_per_minute=tpm,
                timeout=timeout,
            )
            judges = Judges(mode=judge_mode, recordings=recordings, limits=limits)  # type: ignore[arg-type]
            record = {"cases": str(cases_path), "format": fmt, "batch": batch, "repeat": repeat}
            if sample is not None:
                record.update(sample=sample, seed=seed)
            sinks = [make_writer(fmt, stream), *ci_sinks]  # type: ignore[arg-type]
            options = RunOptions(
                threshold=threshold,
                chunk_size=chunk_size,
                run_id=run_id,
                resume=bool(resume_id),
                options_record=record,
                record=record_policy,
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
                        note=_note,
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
                        note=_note,
                    )
                    runner = assembled.runner
                    phase = runner.model_phase
                    status = getattr(phase, "status", None)
                    if status is not None:
                        progress.set_status(status)
                    if batch:
                        summary = _run_with_batch(
                            runner, phase, open_cases, target, batch_poll, total
                        )
                    else:
                        summary = run_sync(runner, open_cases(), total=total)
            except KeyboardInterrupt:
                which = f"runs {run_id}-*" if sut_plan.variants else f"run {run_id}"
                click.echo(f"interrupted: {which} keeps the rows already stored", err=True)
                sys.exit(130)
            completed = True
    except VerifierError as exc:
        _fail(str(exc))
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
                _fail(str(exc))
    for sink in ci_sinks:
        if getattr(sink, "failure", None) is not None:
            _fail(str(sink.failure))
    if summary.total_cases == 0:
        _fail(f"{cases_path}: no cases found")
    where = f" to {out}" if out else ""
    failed = summary.failed_cases
    if sut_plan.variants:
        (name_a, _), (name_b, _) = sut_plan.variants
        if baseline_summary is not None:
            failed += baseline_summary.failed_cases
            click.echo(
                f"variant {name_a}: run {baseline_summary.run_id}: "
                f"{baseline_summary.passed_cases}/{baseline_summary.total_cases} cases passed",
                err=True,
            )
        click.echo(f"variant {name_b}, compared against {name_a}:", err=True)
    head = f"; store head {summary.head}" if summary.head else ""
    click.echo(
        f"run {summary.run_id}: {summary.passed_cases}/{summary.total_cases} cases passed; "
        f"gap rows in {stored_in}{head}{'; report written' + where if out else ''}",
        err=True,
    )
    if sut_plan.variants and baseline_summary is not None:
        click.echo(
            f"compare them: verifier compare {baseline_summary.run_id} {summary.run_id}",
            err=True,
        )
    sys.exit(EXIT_OK if failed == 0 else EXIT_FAILED)


class _StdoutGuard:
    """File descriptor 1 sent to stderr, with a stream on the real stdout for the report."""

    def __init__(self) -> None:
        sys.stdout.flush()
        self._saved = os.dup(1)
        os.dup2(2, 1)
        self.report: IO[str] = os.fdopen(os.dup(self._saved), "w", encoding="utf-8")

    def restore(self) -> None:
        self.report.flush()
        sys.stdout.flush()
        os.dup2(self._saved, 1)
        os.close(self._saved)
        self.report.close()


def _ci_sinks(
    loaded: Any,
    gap_store: Any,
    *,
    cases_path: Path,
    annotations: str,
    step_summary: str | None,
    comment_stream: IO[str] | None,
    against: str | None,
) -> list[Any]:
    """The report sinks a CI asked for: annotations, step summary, PR comment body."""
    sinks: list[Any] = []
    if _annotating(annotations):
        from verifier.ci.annotations import AnnotationWriter, claim_positions, workspace_path

        sinks.append(
            AnnotationWriter(
                sys.stderr, claim_positions(loaded), cases_file=workspace_path(cases_path)
            )
        )
    baseline = None
    if against is not None:
        from verifier.ci.baseline import load_baseline

        baseline = load_baseline(against, gap_store)
    if step_summary is not None:
        from verifier.ci.step_summary import StepSummaryWriter

        sinks.append(StepSummaryWriter(Path(step_summary), baseline=baseline))
    if comment_stream is not None:
        from verifier.ci.pr_comment import PrCommentWriter

        sinks.append(PrCommentWriter(comment_stream, baseline=baseline))
    return sinks


def _run_with_batch(
    runner: Any, phase: Any, open_cases: Any, target: str, poll: float, total: int | None
) -> Any:
    """The batch pre-pass and the run in one event loop (the providers belong to it)."""
    import asyncio

    from verifier.judge.batch import BatchError, BatchLedger, run_batch_prepass

    if phase is None:
        raise BatchError("--batch needs judge claims; this contract has none")
    if phase.mode == "replay":
        raise BatchError("--batch calls the judges; it cannot be combined with replay mode")

    async def both() -> Any:
        ledger = BatchLedger(target)
        try:
            errors = await run_batch_prepass(
                phase,
                open_cases(),
                ledger=ledger,
                run_id=runner.run_id,
                poll_interval=poll,
            )
        finally:
            ledger.close()
        phase.replay_reasons = errors
        phase.mode = "replay"
        return await runner.run(open_cases(), total=total)

    return asyncio.run(both())


def _note(why: str) -> None:
    click.echo(f"note: {why} (pass --judges live for real calls)", err=True)


@main.command("evaluate")
@click.argument("evaluation", metavar="FILE")
@_single_judge_options(modes=("live", "replay", "record"))
@_STORE_OPTION
def evaluate_command(
    evaluation: str,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    max_tokens: int | None,
    config_path: Path | None,
    judge_name: str | None,
    judge_mode: str | None,
    recordings: Path | None,
    store: str | None,
) -> None:
    """Judge one output against assertions: the PRD's single-evaluation JSON in FILE (- for
    stdin), its result as JSON on stdout, one gap row per assertion in the store."""
    import json

    from verifier.errors import VerifierError
    from verifier.evaluate import evaluate, read_evaluation
    from verifier.gaps.store import redacted_target
    from verifier.judge.config import choose_judge

    target = _store_target(store)
    try:
        request = read_evaluation(evaluation)
        judge = choose_judge(
            provider=provider,
            model=model,
            base_url=base_url,
            max_tokens=max_tokens,
            config=config_path,
            name=judge_name,
        )
        for warning in judge.warnings:
            click.echo(f"warning: {warning}", err=True)
        result = evaluate(
            request,
            judge,
            source=Path("stdin" if evaluation == "-" else evaluation),
            store=target,
            mode=judge_mode,  # type: ignore[arg-type]
            recordings=recordings,
            note=lambda text: click.echo(f"note: {text}", err=True),
        )
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
    report = result.as_json()
    click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    click.echo(
        f"evaluation {result.run_id}: {report['passed']}/{report['total']} assertions passed; "
        f"gap rows in {redacted_target(target)}",
        err=True,
    )
    sys.exit(EXIT_OK if result.passed else EXIT_FAILED)


@main.command()
@_STORE_OPTION
@click.option(
    "--run",
    "run_id",
    default=None,
    help="Check the rows, drift and alerts of this run only (the chain is always checked "
    "whole, and trends cover every run).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["console", "json", "markdown"]),
    default="console",
    show_default=True,
)
@click.option(
    "--window",
    type=click.IntRange(min=3),
    default=5,
    show_default=True,
    help="Earlier runs a run's pass rate is compared with for degradation alerts.",
)
@click.option(
    "--fail-on-alert", is_flag=True, help="Exit 1 on a degradation alert too, not only on damage."
)
@click.option(
    "--recheck",
    is_flag=True,
    help="Instead: re-evaluate every stored verdict from the stored content and contract "
    "(judges from the cache or recordings, never called); exit 1 when one differs.",
)
@click.option(
    "--expect-head",
    default=None,
    metavar="HASH",
    help="A head printed by an earlier audit or run: exit 1 unless the store's seal chain "
    "still holds it where it was.",
)
def audit(
    store: str | None,
    run_id: str | None,
    fmt: str,
    window: int,
    fail_on_alert: bool,
    recheck: bool,
    expect_head: str | None,
) -> None:
    """Re-check every stored gap row (schema, judge triples, hash chain), the sealed run
    records, contracts and contents, print the store's head hash, and report judge
    drift, pass-rate trends and degradation alerts."""
    import re

    from verifier.errors import VerifierError
    from verifier.gaps._history_render import render_history
    from verifier.gaps.history import audit_history
    from verifier.gaps.store import open_store

    if expect_head is not None and not re.fullmatch(r"[0-9a-f]{64}", expect_head):
        _fail(f"--expect-head {expect_head[:80]!r} is not a head: 64 lowercase hex digits")
    target = _existing_store(store)
    if recheck:
        _recheck(target, run_id, fmt, expect_head)
    try:
        with open_store(target) as gap_store:
            report = audit_history(gap_store, run_id=run_id, window=window, expect_head=expect_head)
    except VerifierError as exc:
        _fail(str(exc))
    click.echo(render_history(report, fmt), nl=False)
    sys.exit(EXIT_FAILED if report.failed(fail_on_alert=fail_on_alert) else EXIT_OK)


def _recheck(target: str, run_id: str | None, fmt: str, expect_head: str | None) -> NoReturn:
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.recheck import recheck_store, render_recheck

    held = True
    try:
        with open_store(target) as gap_store:
            if run_id is not None and gap_store.run(run_id) is None:
                _fail(f"no run {run_id} in {gap_store.location}")
            report = recheck_store(gap_store, target=target, run_id=run_id)
            if expect_head is not None:
                held = any(seal.seal_hash == expect_head for seal in gap_store.iter_seals())
    except VerifierError as exc:
        _fail(str(exc))
    click.echo(render_recheck(report, fmt), nl=False)
    if not held:
        click.echo(
            f"error: the published head {expect_head} is not in the store's seal chain: "
            "the store was rewritten, cut or replaced since it was published",
            err=True,
        )
    sys.exit(EXIT_OK if report.ok and held else EXIT_FAILED)


@main.command("export")
@_STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "parquet", "promptfoo"]),
    default="jsonl",
    show_default=True,
    help="JSONL can be imported into another store; Parquet is for analysis; promptfoo "
    "writes one GradingResult JSON line per row.",
)
@click.option("--run", "run_id", default=None, help="Export the rows of this run only.")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="File to write.  [default: standard output, JSONL only]",
)
def export_command(store: str | None, fmt: str, run_id: str | None, out: Path | None) -> None:
    """Stream gap rows out of a store, each with its row_hash."""
    from verifier._write_errors import OutputError
    from verifier.errors import VerifierError
    from verifier.gaps.export import write_export
    from verifier.gaps.store import open_store

    target = _existing_store(store)
    if fmt == "promptfoo":
        from verifier.integrations.promptfoo_cli import export_promptfoo

        return export_promptfoo(target, out, run_id)
    try:
        with open_store(target) as gap_store:
            summary = write_export(gap_store, fmt, out, run_id=run_id)
    except ImportError:
        _fail("a Parquet export needs pyarrow: pip install 'verifier[parquet]'")
    except (VerifierError, ValueError) as exc:
        _fail(str(exc))
    except OSError as exc:
        if out is None:
            raise  # standard output: the command line's own handler names it
        _fail(str(OutputError(out, exc, "the export")))  # Parquet, written by pyarrow
    for warning in summary.warnings:
        click.echo(f"warning: {warning}; an import of this export will refuse it", err=True)
    where = f" to {out}" if out else ""
    click.echo(f"exported {summary.rows} rows of {summary.runs} run(s){where}", err=True)


@main.group("import", cls=DefaultCommandGroup, default_command="jsonl")
def import_group() -> None:
    """Import results: a verifier JSONL export (the default: `verifier import FILE`), or
    one promptfoo assertion result (`verifier import promptfoo FILE`)."""


import_group.add_command(promptfoo_import_command)
main.add_command(purge_command)


@import_group.command("jsonl")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--store",
    default=None,
    help=f"Gap-row store to import into.  [default: {DEFAULT_STORE}]",
)
@click.option(
    "--expect-head",
    default=None,
    metavar="HASH",
    help="The head the source store published: refuse an export whose seals do not hold it.",
)
def import_command(file: Path, store: str | None, expect_head: str | None) -> None:
    """Verify a JSONL export whole (hashes, links, counts), then append it to a store.

    Rows are sealed again into the store's own chain; each keeps its original seq and
    hashes in evidence.resealed_from. A broken export is refused, nothing imported.
    """
    from verifier.errors import VerifierError
    from verifier.gaps.importer import ExportRefused, import_jsonl
    from verifier.gaps.store import open_store

    target = _store_target(store)
    try:
        with open_store(target) as gap_store:
            summary = import_jsonl(file, gap_store, expect_head=expect_head)
            location = gap_store.location
    except ExportRefused as exc:
        _fail(f"{file}:{exc.line}: refused, nothing imported: {exc.reason}", EXIT_FAILED)
    except VerifierError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{file}: cannot read: {exc.strerror or exc}")
    click.echo(
        f"imported {summary.rows} rows of {len(summary.runs)} run(s) from {file} into "
        f"{location}, sealed into its chain (original hashes in evidence.resealed_from)"
    )


@main.command("calibrate")
@click.option(
    "--labels",
    "labels_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Human labels (JSONL): case_id, claim_id, label (pass, fail or a score), rater.",
)
@click.option("--run", "run_id", default=None, help="The run to calibrate.  [default: the last]")
@_STORE_OPTION
@click.option(
    "--format", "fmt", type=click.Choice(["console", "json"]), default="console", show_default=True
)
def calibrate(labels_path: Path, run_id: str | None, store: str | None, fmt: str) -> None:
    """Measure how far a run's judge verdicts agree with human labels, and store the result
    under each judge's stability triple (`verifier check` warns about judges without one)."""
    from verifier.compare.calibration import calibrate_run
    from verifier.compare.calibration_store import CalibrationStore
    from verifier.compare.labels import LabelsError, read_labels
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    target = _existing_store(store)
    try:
        labels = read_labels(labels_path)
        with open_store(target) as gap_store:
            report = calibrate_run(gap_store, labels, run_id)
            location = gap_store.location
        stored = 0
        if report.claims:
            with CalibrationStore(target) as calibrations:
                stored = calibrations.save(report)
    except LabelsError as exc:
        for problem in exc.problems:
            click.echo(f"error: {printable(str(problem))}", err=True)
        sys.exit(EXIT_INVALID)
    except VerifierError as exc:
        _fail(str(exc))
    if fmt == "json":
        import orjson

        click.echo(orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(report.render_text())
    if not report.claims:
        _fail(f"no label matched a judge verdict of run {report.run_id}")
    click.echo(f"stored {stored} calibration{'s' if stored != 1 else ''} in {location}", err=True)


@main.command("compare")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@_STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["console", "json", "markdown"]),
    default="console",
    show_default=True,
)
def compare(run_a: str, run_b: str, store: str | None, fmt: str) -> None:
    """Is candidate RUN_B better or worse than baseline RUN_A, claim by claim, and is it real?
    Paired pass rates with 95% intervals, exact McNemar tests with Holm's correction, and
    the cases needed to detect the difference; exits 1 when a claim is significantly worse."""
    from verifier.compare.analysis import compare_runs
    from verifier.compare.report import write_report
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    target = _existing_store(store)
    try:
        with open_store(target) as gap_store:
            comparison = compare_runs(gap_store, run_a, run_b)
    except VerifierError as exc:
        _fail(str(exc))
    for warning in comparison.paired.warnings:
        click.echo(f"warning: {warning}", err=True)
    write_report(comparison, fmt, sys.stdout)
    sys.exit(EXIT_FAILED if comparison.worse else EXIT_OK)


@main.command("report")
@click.argument("run_id", metavar="[RUN]", required=False)
@_STORE_OPTION
@click.option(
    "--html",
    "html_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The self-contained HTML file to write.",
)
@click.option(
    "--trend",
    is_flag=True,
    help="Write the pass rate of every claim over all runs and days, with degradation "
    "alerts and judge drift (RUN, if given, narrows the alerts and drift to that run).",
)
@click.option(
    "--window",
    type=click.IntRange(min=3),
    default=5,
    show_default=True,
    help="With --trend: earlier runs a run's pass rate is compared with for alerts.",
)
def report_command(
    run_id: str | None, store: str | None, html_path: Path, trend: bool, window: int
) -> None:
    """Write a stored run (default: the last) as one self-contained HTML page: summary,
    pass rate per claim, judge triples, every result that did not pass. With --trend,
    the store's pass rates over time and its alerts instead."""
    from verifier.errors import VerifierError

    context = click.get_current_context()
    if not trend and context.get_parameter_source("window") is not ParameterSource.DEFAULT:
        _fail("--window applies to --trend only")
    target = _existing_store(store)
    try:
        if trend:
            message = _write_trend(target, html_path, run_id, window)
        else:
            message = _write_run_report(target, html_path, run_id)
    except VerifierError as exc:
        _fail(str(exc))
    click.echo(message, err=True)


def _write_run_report(target: str, path: Path, run_id: str | None) -> str:
    from verifier.gaps.store import open_store
    from verifier.report.html import write_run_html

    with open_store(target) as gap_store:
        record = gap_store.run(run_id) if run_id else gap_store.last_run()
        if record is None:
            where = gap_store.location
            _fail(f"run {run_id} is not in {where}" if run_id else f"{where}: no runs stored")
        view = write_run_html(gap_store, record, path)
    return (
        f"wrote the report of run {record.run_id} to {path}: {view.rows} results, "
        f"{view.not_passed} not passed"
        + (f" ({view.left_out} not listed)" if view.left_out else "")
    )


def _write_trend(target: str, path: Path, run_id: str | None, window: int) -> str:
    from verifier.gaps.store import open_store
    from verifier.report.html_trend import write_trend_html

    with open_store(target) as gap_store:
        if not gap_store.runs():
            _fail(f"{gap_store.location}: no runs stored")
        if run_id and gap_store.run(run_id) is None:
            _fail(f"run {run_id} is not in {gap_store.location}")
        history = write_trend_html(gap_store, path, run_id=run_id, window=window)
    return (
        f"wrote the trends of {len(history.trends.claims)} claim(s) over "
        f"{len(history.trends.runs)} run(s) to {path}: {len(history.alerts)} alert(s)"
    )


@main.command("show")
@click.argument("run_id", metavar="RUN")
@click.argument("case_id", metavar="CASE")
@_STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["console", "json"]),
    default="console",
    show_default=True,
)
def show_command(run_id: str, case_id: str, store: str | None, fmt: str) -> None:
    """Print one case of a stored run: its content (input, output, other fields, what a
    record policy withheld) with the spans that decided its failures marked, and every
    result with its status, score, reason and evidence."""
    from verifier.errors import VerifierError
    from verifier.report.case_view import show_case

    target = _existing_store(store)
    try:
        show_case(target, run_id, case_id, fmt, sys.stdout)  # type: ignore[arg-type]
    except VerifierError as exc:
        _fail(str(exc))


def _limit_option(name: str, default: int, help: str) -> Callable[[Any], Any]:
    """A ``verifier serve`` limit: a whole number of at least 1."""
    return click.option(
        name, type=click.IntRange(min=1), default=default, show_default=True, help=help
    )


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--token",
    envvar="VERIFIER_SERVE_TOKEN",
    show_envvar=True,
    default=None,
    help="Bearer token every request must carry; required off loopback (prefer the variable).",
)
@_STORE_OPTION
@click.option(
    "--contracts",
    "contracts_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory of contracts that POST /v1/runs may name by path.",
)
@_single_judge_options(modes=("live", "replay"))
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=1 << 20,
    show_default=True,
    help="Largest request body accepted, in bytes (larger ones get 413).",
)
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Runs (POST /v1/runs) going on at once; more are refused with 429.",
)
@click.option(
    "--read-timeout",
    type=FiniteFloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds a connection has to send each whole request (headers and body); "
    "a slower or silent client is disconnected.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="Also answer requests whose Host header is this (a name behind a proxy); "
    "repeatable. By default only loopback names and the bound address are answered.",
)
@_limit_option(
    "--max-results",
    100_000,
    "Results one POST /v1/runs may ask for (cases x claims, each judge sample counted); "
    "more are refused with 413 before anything is written.",
)
@_limit_option("--max-cases", 10_000, "Cases one POST /v1/runs may carry; more get 413.")
@_limit_option(
    "--max-assertions", 1_000, "Assertions one POST /v1/evaluate may carry; more get 413."
)
@_limit_option(
    "--kept-runs", 256, "Finished runs GET /v1/runs/ID still answers for (oldest dropped first)."
)
@_limit_option(
    "--kept-bytes",
    1 << 30,
    "Bytes of finished runs' reports kept on disk, under $TMPDIR (oldest dropped first; "
    "the newest is kept whatever its size).",
)
def serve_command(**options: Any) -> None:
    """Serve the HTTP API: POST /v1/evaluate (the PRD's single evaluation, judged by the
    judge named here), POST /v1/runs and GET /v1/runs/ID; OpenAPI at /openapi.json."""
    try:
        from verifier.server.serve import serve, settings_from_options
    except ImportError:
        _fail("verifier serve needs FastAPI and uvicorn: pip install 'verifier[serve]'")
    from verifier.errors import VerifierError

    judge = {
        "provider": options.pop("provider"),
        "model": options.pop("model"),
        "base_url": options.pop("base_url"),
        "max_tokens": options.pop("max_tokens"),
        "config": options.pop("config_path"),
        "name": options.pop("judge_name"),
    }
    options["store"] = _store_target(options["store"])
    try:
        settings, notes = settings_from_options(judge_options=judge, **options)
        for note in notes:
            click.echo(note, err=True)
        serve(settings, ready=lambda url: click.echo(f"serving the API on {url}", err=True))
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
