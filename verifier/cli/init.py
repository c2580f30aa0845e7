"""``verifier init``: write a starter contract, its cases, a judge template and
recorded verdicts, so that the first run works offline and without a key.

The scaffold is imported inside the command, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from verifier._internal.terminal import printable_line
from verifier.cli._options import fail


@click.command("init")
@click.argument(
    "directory", required=False, default=".", type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--name",
    default=None,
    help="The contract's id and the stem of its files.  [default: support-answers]",
)
@click.option("--force", is_flag=True, help="Overwrite starter files that exist already.")
def init_command(directory: Path, name: str | None, force: bool) -> None:
    """Write a starter contract with its cases, a judge template and recorded verdicts
    into DIRECTORY (default: the current one).

    Nothing is written when one of the files exists already, unless --force is given.
    """
    from verifier.errors import VerifierError
    from verifier.scaffold import DEFAULT_NAME, plan_scaffold, write_scaffold

    try:
        scaffold = plan_scaffold(directory, name or DEFAULT_NAME)
        write_scaffold(scaffold, force=force)
    except VerifierError as exc:
        fail(str(exc))
    width = max(len(str(path)) for path, _ in scaffold.files)
    click.echo(printable_line(f"wrote a starter contract in {directory}:"))
    for path, what in scaffold.files:
        click.echo(printable_line(f"  {path!s:<{width}}  {what}"))
    contract, cases = shlex.quote(str(scaffold.contract)), shlex.quote(str(scaffold.cases))
    click.echo("next:")
    click.echo(printable_line(f"  verifier check {shlex.quote(str(directory))}"))
    click.echo(printable_line(f"  verifier run {contract} --cases {cases}"))
    click.echo("  verifier report --html report.html")
