"""The last lines of ``verifier run`` on stderr, and its exit code.

Imported only when ``run`` runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from verifier.cli._options import EXIT_FAILED, EXIT_OK, fail
from verifier.results import RunSummary

if TYPE_CHECKING:  # the gate's statistics are imported when a gate decides (ADR 0045)
    from verifier.compare.gate import GateDecision

__all__ = ["end_run", "finish_run"]


def finish_run(
    summary: RunSummary,
    baseline_summary: RunSummary | None,
    *,
    variants: tuple[str, str] | None,
    ci_sinks: list[Any],
    cases_path: Path,
    stored_in: str,
    out: Path | None,
    gate: GateDecision | None = None,
) -> NoReturn:
    """Fails on a CI sink's failure or an empty cases file, else prints where the run's
    rows went and exits 0 when every case (of both variants) passed, else 1; with a
    ``gate``, prints its verdict and exits 0 when it passed, else 1."""
    for sink in ci_sinks:
        if getattr(sink, "failure", None) is not None:
            fail(str(sink.failure))
    if summary.total_cases == 0:
        fail(f"{cases_path}: no cases found")
    where = f" to {out}" if out else ""
    if out:
        # The report went to a file: its warnings are said here too.
        for warning in summary.warnings:
            click.echo(f"warning: {warning}", err=True)
    failed = summary.failed_cases
    if variants is not None:
        name_a, name_b = variants
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
    if variants is not None and baseline_summary is not None:
        click.echo(
            f"compare them: verifier compare {baseline_summary.run_id} {summary.run_id}",
            err=True,
        )
    if gate is not None:
        click.echo(gate.line(), err=True)
        sys.exit(gate.exit_code)
    sys.exit(EXIT_OK if failed == 0 else EXIT_FAILED)


def end_run(
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
    from verifier.cli._run_parts import say_sample, scope_lines
    from verifier.cli._run_summary import finish_run
    from verifier.gaps.target import store_target

    if resumed and result.sample is not None:  # the sample it began with
        say_sample(result.sample)
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
