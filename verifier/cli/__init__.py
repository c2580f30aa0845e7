"""The ``verifier`` command line.

Exit codes: 0 every case passed (or the check/audit found nothing); 1 a case failed or
errored (or audit found an integrity problem); 2 invalid contract, cases or usage.

One module per command; the options and helpers they share are in ``_options``. The
command modules import only click and light modules at the top, heavy ones inside the
commands, so ``verifier --help`` starts fast. Nothing below the command line imports
from this package.
"""

from __future__ import annotations

import click

from verifier import __version__
from verifier.cli._output import OutputFaultGroup
from verifier.cli.audit import audit
from verifier.cli.calibrate import calibrate
from verifier.cli.check import check
from verifier.cli.compare import compare
from verifier.cli.evaluate import evaluate_command
from verifier.cli.export import export_command
from verifier.cli.gate import gate_group
from verifier.cli.import_ import import_group
from verifier.cli.init import init_command
from verifier.cli.mcp import mcp_command
from verifier.cli.prompt_eval import prompt_eval_command
from verifier.cli.purge import purge_command
from verifier.cli.report import report_command
from verifier.cli.run import run
from verifier.cli.runs import runs_command
from verifier.cli.serve import serve_command
from verifier.cli.show import show_command
from verifier.cli.view import view_command

__all__ = ["main"]


@click.group(
    cls=OutputFaultGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(version=__version__, prog_name="verifier")
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


for _command in (
    init_command,
    check,
    run,
    evaluate_command,
    prompt_eval_command,
    audit,
    export_command,
    import_group,
    purge_command,
    calibrate,
    compare,
    gate_group,
    report_command,
    runs_command,
    show_command,
    serve_command,
    view_command,
    mcp_command,
):
    main.add_command(_command)
