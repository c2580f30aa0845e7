"""``verifier compare``: is one run better or worse than another, claim by claim."""

from __future__ import annotations

import sys

import click

from verifier.cli._options import (
    EXIT_FAILED,
    EXIT_OK,
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    format_option,
    resolve_run,
)


@click.command("compare")
@click.argument("run_a", metavar="RUN_A", type=RUN_ID)
@click.argument("run_b", metavar="RUN_B", type=RUN_ID)
@STORE_OPTION
@format_option("console", "json", "markdown")
def compare(run_a: str, run_b: str, store: str | None, fmt: str) -> None:
    """Is candidate RUN_B better or worse than baseline RUN_A, claim by claim, and is it real?
    Paired pass rates with 95% intervals, exact McNemar tests with Holm's correction, and
    the cases needed to detect the difference; exits 1 when a claim is significantly worse."""
    from verifier.compare.analysis import compare_runs
    from verifier.compare.report import write_report
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    target = existing_store(store)
    run_a, run_b = resolve_run(target, run_a), resolve_run(target, run_b)
    try:
        with open_store(target) as gap_store:
            comparison = compare_runs(gap_store, run_a, run_b)
    except VerifierError as exc:
        fail(str(exc))
    for warning in comparison.paired.warnings:
        click.echo(f"warning: {warning}", err=True)
    write_report(comparison, fmt, sys.stdout)
    sys.exit(EXIT_FAILED if comparison.worse else EXIT_OK)
