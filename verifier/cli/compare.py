"""``verifier compare``: is one run better or worse than another, claim by claim."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
from verifier.cli.gate import GATE_OPTION


@click.command("compare")
@click.argument("run_a", metavar="RUN_A", type=RUN_ID)
@click.argument("run_b", metavar="RUN_B", type=RUN_ID)
@STORE_OPTION
@format_option("console", "json", "markdown")
@GATE_OPTION
def compare(run_a: str, run_b: str, store: str | None, fmt: str, gate_path: Path | None) -> None:
    """Is candidate RUN_B better or worse than baseline RUN_A, claim by claim, and is it real?
    Paired pass rates with 95% intervals, exact McNemar tests with Holm's correction, and
    the cases needed to detect the difference; exits 1 when a claim is significantly worse."""
    if gate_path is not None:
        _compare_gated(run_a, run_b, store, fmt, gate_path)
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
    for warning in comparison.warnings:
        click.echo(f"warning: {warning}", err=True)
    write_report(comparison, fmt, sys.stdout)
    sys.exit(EXIT_FAILED if comparison.worse else EXIT_OK)


def _compare_gated(run_a: str, run_b: str, store: str | None, fmt: str, gate_path: Path) -> None:
    """``compare --gate``: refuses a gate file that is not the gate sealed in the store,
    and runs of another contract or cases than the gate's (their outputs may differ),
    then decides on its primary claim and exits 0 (passed) or 1 (failed)."""
    from verifier.compare.analysis import compare_runs
    from verifier.compare.gate import decide_comparison
    from verifier.compare.gate_file import FINDINGS_METRICS, read_gate
    from verifier.compare.gate_findings import decide_findings_comparison
    from verifier.compare.gate_lock import check_sealed, refuse_other_run
    from verifier.compare.report import as_json, render_markdown, write_report
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    target = existing_store(store)
    run_a, run_b = resolve_run(target, run_a), resolve_run(target, run_b)
    try:
        gate = read_gate(gate_path)
        with open_store(target) as gap_store:
            check_sealed(gate, gate_path, gap_store)
            for run_id in (run_a, run_b):
                record = gap_store.run(run_id)
                if record is not None:  # else compare_runs names the unknown run
                    refuse_other_run(gate, record)
            comparison = compare_runs(gap_store, run_a, run_b, alpha=gate.alpha)
            if gate.metric in FINDINGS_METRICS:
                decision = decide_findings_comparison(gate, gap_store, comparison)
            else:
                decision = decide_comparison(gate, comparison)
    except VerifierError as exc:
        fail(str(exc))
    for warning in comparison.warnings:
        click.echo(f"warning: {warning}", err=True)
    if fmt == "json":
        import orjson

        document: dict[str, Any] = {**as_json(comparison), "gate": decision.as_json()}
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif fmt == "markdown":
        render_markdown(comparison, sys.stdout)
        sys.stdout.write("\n" + decision.markdown())
    else:
        write_report(comparison, fmt, sys.stdout)
        click.echo(decision.line())
    sys.stdout.flush()
    sys.exit(decision.exit_code)
