"""``verifier view``: the results viewer, read-only, in a browser.

FastAPI and uvicorn are imported only when the command runs: they are an extra.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from verifier._internal.terminal import printable
from verifier.cli._options import EXIT_INVALID, STORE_OPTION, existing_store, fail
from verifier.cli.serve import GUARD_OPTIONS, LISTEN_OPTIONS, stops_on_ctrl_c
from verifier.viewer.frame_ancestors import FRAME_ANCESTOR_OPTION


@click.command("view")
@STORE_OPTION
@LISTEN_OPTIONS
@GUARD_OPTIONS
@FRAME_ANCESTOR_OPTION
def view_command(store: str | None, **options: Any) -> None:
    """Browse a store's runs, results and cases in a browser, read-only: the pages
    under /view/ (also served by `verifier serve`). Off loopback it needs --token.
    Ctrl-C stops it (exit 0)."""
    try:
        from verifier.server.serve import serve
        from verifier.server.settings import ServerSettings
        from verifier.server.view import create_view_app
    except ImportError:
        fail("verifier view needs FastAPI and uvicorn: pip install 'verifier-llm[serve]'")
    from verifier.errors import VerifierError

    settings = ServerSettings(store=existing_store(store), **options)
    try:
        settings.check()
        with stops_on_ctrl_c("viewer"):
            serve(
                settings,
                ready=lambda url: click.echo(f"serving the viewer on {url}/view/", err=True),
                factory=create_view_app,
            )
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
