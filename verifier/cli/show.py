"""``verifier show``: one case of a stored run, with its results."""

from __future__ import annotations

import sys

import click

from verifier.cli._options import (
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    format_option,
    resolve_run,
)


@click.command("show")
@click.argument("run_id", metavar="RUN", type=RUN_ID)
@click.argument("case_id", metavar="CASE")
@STORE_OPTION
@format_option("console", "json")
def show_command(run_id: str, case_id: str, store: str | None, fmt: str) -> None:
    """Print one case of a stored run: its content (input, output, other fields, what a
    record policy withheld) with the spans that decided its failures marked, and every
    result with its status, score, reason and evidence."""
    from verifier.errors import VerifierError
    from verifier.report.case_view import show_case

    target = existing_store(store)
    run_id = resolve_run(target, run_id)
    try:
        show_case(target, run_id, case_id, fmt, sys.stdout)  # type: ignore[arg-type]
    except VerifierError as exc:
        fail(str(exc))
