"""The ``verifier`` command line.

Exit codes: 0 every case passed (or the check/audit found nothing); 1 a case failed or
errored (or audit found an integrity problem); 2 invalid contract, cases or usage.

One module per command; the options and helpers they share are in ``_options``. A
command's module is imported only when that command runs (``_lazy``), and the command
modules import only click and light modules at the top, heavy ones inside the
commands, so any command and ``verifier --help`` start fast. Nothing below the
command line imports from this package.
"""

from __future__ import annotations

import click

from verifier import __version__
from verifier.cli._lazy import LazyGroup

__all__ = ["main"]

# Imported when invoked (or listed by help), so a command starts without the others.
_COMMANDS = {
    "init": "verifier.cli.init:init_command",
    "check": "verifier.cli.check:check",
    "run": "verifier.cli.run:run",
    "evaluate": "verifier.cli.evaluate:evaluate_command",
    "prompt-eval": "verifier.cli.prompt_eval:prompt_eval_command",
    "audit": "verifier.cli.audit:audit",
    "export": "verifier.cli.export:export_command",
    "import": "verifier.cli.import_:import_group",
    "purge": "verifier.cli.purge:purge_command",
    "calibrate": "verifier.cli.calibrate:calibrate",
    "compare": "verifier.cli.compare:compare",
    "gate": "verifier.cli.gate:gate_group",
    "judge": "verifier.cli.judge:judge_group",
    "report": "verifier.cli.report:report_command",
    "runs": "verifier.cli.runs:runs_command",
    "judges": "verifier.cli.judges:judges_command",
    "show": "verifier.cli.show:show_command",
    "serve": "verifier.cli.serve:serve_command",
    "view": "verifier.cli.view:view_command",
    "mcp": "verifier.cli.mcp:mcp_command",
}


@click.group(
    cls=LazyGroup,
    lazy_commands=_COMMANDS,
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
