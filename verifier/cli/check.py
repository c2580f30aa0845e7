"""``verifier check``: validate and lint contracts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from verifier._terminal import printable_line
from verifier.cli._options import (
    ALLOW_OUTSIDE_OPTION,
    ANNOTATIONS_OPTION,
    DEFAULT_STORE,
    EXIT_INVALID,
    annotating,
    store_target,
)


@click.command("check")
@click.argument("contracts", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--store",
    default=None,
    help="Store holding judge calibrations (SQLite file or postgresql:// URL).  "
    f"[default: {DEFAULT_STORE}]",
)
@ANNOTATIONS_OPTION
@ALLOW_OUTSIDE_OPTION
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
        store_target(store),
        note=lambda text: click.echo(f"note: {text}", err=True),
    )
    annotate = annotating(annotations)

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
