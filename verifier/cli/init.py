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
    help="The contract's id and the stem of its files.  "
    "[default: support-answers; likert-review with --template likert]",
)
@click.option(
    "--template",
    type=click.Choice(["starter", "likert"]),
    default="starter",
    show_default=True,
    help="starter: rubric, judge and comparative claims; likert: a five-dimension "
    "1-5 rubric (relevance, accuracy, completeness, format, safety) with an overall score.",
)
@click.option("--force", is_flag=True, help="Overwrite starter files that exist already.")
def init_command(directory: Path, name: str | None, template: str, force: bool) -> None:
    """Write a starter contract with its cases, a judge template and recorded verdicts
    into DIRECTORY (default: the current one).

    Nothing is written when one of the files exists already, unless --force is given.
    """
    from verifier.errors import VerifierError
    from verifier.scaffold import plan_scaffold, write_scaffold

    try:
        scaffold = plan_scaffold(directory, name or None, template)
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
