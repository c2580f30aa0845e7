"""``verifier mcp``: the MCP server over stdio.

The ``mcp`` SDK is imported only when the command runs: it is an extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from verifier.cli._options import STORE_OPTION, fail, store_target

if TYPE_CHECKING:
    from verifier.judge.phase import JudgeMode


@click.command("mcp")
@STORE_OPTION
@click.option(
    "--judges",
    "judge_mode",
    type=click.Choice(["live", "replay", "record"]),
    default=None,
    help="As for `verifier run`; a client may ask for replay or off instead, never for "
    "live or record unless given here.  "
    "[default: live when the judges' API key is set, else replay]",
)
@click.option(
    "--recordings",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Recorded judge verdicts (JSONL) every run reads (and writes, in record).  "
    "[default: NAME.recordings.jsonl beside the contract, in replay and record only]",
)
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=Path("."),
    show_default=True,
    help="Directory the paths a client names are resolved against; they must stay in it.",
)
def mcp_command(
    store: str | None, judge_mode: str | None, recordings: Path | None, root: Path
) -> None:
    """Serve the tools check, run, audit and evaluate to an MCP client over stdin and
    stdout (register this command in the client's configuration)."""
    try:
        from verifier.mcp_server.root import Root
        from verifier.mcp_server.server import serve
        from verifier.mcp_server.tools import Settings
    except ImportError:
        fail("verifier mcp needs the MCP SDK: pip install 'verifier-llm[mcp]'")

    serve(
        Settings(
            root=Root.of(root),
            store=store_target(store),
            judges=cast("JudgeMode | None", judge_mode),
            recordings=recordings,
        )
    )
