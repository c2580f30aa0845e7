"""``verifier check``: validate and lint contracts, named one by one or found in a
directory (see ``verifier._internal.contract_files`` for how a contract is told from other YAML)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from verifier._internal.contract_files import is_contract, yaml_files_under
from verifier._internal.terminal import printable_line
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
    """Validate and lint CONTRACTS; print every problem as FILE:LINE:COL: message.

    A directory stands for every contract under it: each .yaml or .yml file with a
    top-level `contract:` key (other YAML files, such as judges files, are skipped,
    and so are hidden directories).
    """
    from verifier.compare.calibration_check import CalibrationCheck
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

    paths, problems = _expand(contracts)
    for path in paths:
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
                    f"{len(contract.claims)} claim{'s' if len(contract.claims) != 1 else ''}"
                )
            )
    if problems:
        click.echo(f"{problems} problem{'s' if problems != 1 else ''} found", err=True)
        sys.exit(EXIT_INVALID)


def _expand(arguments: tuple[Path, ...]) -> tuple[list[Path], int]:
    """The contract files the arguments name, and how many problems finding them had
    (a directory without contracts, or one that cannot be listed).

    A file is checked whatever it holds; a directory stands for the contracts under it.
    """
    paths: list[Path] = []
    problems = 0
    for argument in arguments:
        if not argument.is_dir():
            paths.append(argument)
            continue
        unreadable: list[tuple[Path, str]] = []
        found = list(yaml_files_under(argument, unreadable))
        for directory, reason in unreadable:
            problems += 1
            click.echo(printable_line(f"{directory}: cannot list the directory: {reason}"))
        chosen = [path for path in found if is_contract(path)]
        skipped = [str(path.relative_to(argument)) for path in found if path not in chosen]
        if skipped:
            click.echo(
                printable_line(
                    f"note: {argument}: skipped {len(skipped)} YAML file(s) without a top-level "
                    f"`contract:` key: {', '.join(skipped)}"
                ),
                err=True,
            )
        if not chosen and not unreadable:
            problems += 1
            click.echo(
                printable_line(
                    f"{argument}: no contract found (a .yaml or .yml file with a top-level "
                    "`contract:` key)"
                )
            )
        paths.extend(chosen)
    return paths, problems
