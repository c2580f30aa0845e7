"""``verifier serve``: the HTTP API.

FastAPI and uvicorn are imported only when the command runs: they are an extra.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from verifier._internal.terminal import printable
from verifier.cli._options import (
    EXIT_INVALID,
    EXIT_OK,
    STORE_OPTION,
    fail,
    single_judge_options,
    stacked,
    store_target,
)
from verifier.cli._types import FiniteFloatRange
from verifier.viewer.frame_ancestors import FRAME_ANCESTOR_OPTION


def _limit_option(name: str, default: int, help: str) -> Callable[[Any], Any]:
    """A ``verifier serve`` limit: a whole number of at least 1."""
    return click.option(
        name, type=click.IntRange(min=1), default=default, show_default=True, help=help
    )


LISTEN_OPTIONS = stacked(
    click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind."),
    click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True),
    click.option(
        "--token",
        envvar="VERIFIER_SERVE_TOKEN",
        show_envvar=True,
        default=None,
        help="Bearer token every request must carry; required off loopback (prefer the variable).",
    ),
)
"""Where a server listens and the token it asks for (``verifier serve``, ``verifier view``)."""

GUARD_OPTIONS = stacked(
    click.option(
        "--read-timeout",
        type=FiniteFloatRange(min=0, min_open=True),
        default=10.0,
        show_default=True,
        help="Seconds a connection has to send each whole request (headers and body); "
        "a slower or silent client is disconnected.",
    ),
    click.option(
        "--allowed-host",
        "allowed_hosts",
        multiple=True,
        metavar="NAME[:PORT]",
        help="Also answer requests whose Host header is this (a name behind a proxy); "
        "repeatable. By default only loopback names and the bound address are answered.",
    ),
)
"""How a server guards its connections (``verifier serve``, ``verifier view``)."""


@contextmanager
def stops_on_ctrl_c(what: str) -> Iterator[None]:
    """Ctrl-C is how a server is meant to end (uvicorn has shut down gracefully and
    raises the signal again): says ``WHAT stopped`` and exits 0, not an abort."""
    import warnings

    # A Ctrl-C that lands before uvicorn's loop has started leaves its serve() coroutine
    # unawaited, and Python warns of it as the interrupt unwinds (before any handler of
    # ours runs): nothing had run, so there is nothing to warn of.
    warnings.filterwarnings("ignore", "coroutine 'Server.serve' was never awaited", RuntimeWarning)
    try:
        yield
    except KeyboardInterrupt:
        sys.unraisablehook = _quiet_half_built_loop(sys.unraisablehook)
        click.echo(f"{what} stopped", err=True)
        sys.exit(EXIT_OK)


def _quiet_half_built_loop(
    hook: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], object]:
    """``hook``, but silent for the event loop a Ctrl-C interrupted while it was being
    built: its ``__del__`` then fails on the attributes it never set (the same race as
    the unawaited coroutine above), and nothing had run on it."""

    def quiet(unraisable: sys.UnraisableHookArgs) -> object:
        where = getattr(unraisable.object, "__qualname__", "")
        if isinstance(unraisable.exc_value, AttributeError) and where == "BaseEventLoop.__del__":
            return None
        return hook(unraisable)

    return quiet


@click.command("serve")
@LISTEN_OPTIONS
@STORE_OPTION
@click.option(
    "--contracts",
    "contracts_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory of contracts that POST /v1/runs may name by path.",
)
@single_judge_options(modes=("live", "replay"))
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=1 << 20,
    show_default=True,
    help="Largest request body accepted, in bytes (larger ones get 413).",
)
@click.option(
    "--max-runs",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Runs (POST /v1/runs) going on at once; more are refused with 429.",
)
@GUARD_OPTIONS
@_limit_option(
    "--max-results",
    100_000,
    "Results one POST /v1/runs may ask for (cases x claims, each judge sample counted); "
    "more are refused with 413 before anything is written.",
)
@_limit_option("--max-cases", 10_000, "Cases one POST /v1/runs may carry; more get 413.")
@_limit_option(
    "--max-assertions", 1_000, "Assertions one POST /v1/evaluate may carry; more get 413."
)
@_limit_option(
    "--kept-runs", 256, "Finished runs GET /v1/runs/ID still answers for (oldest dropped first)."
)
@_limit_option(
    "--kept-bytes",
    1 << 30,
    "Bytes of finished runs' reports kept on disk, under $TMPDIR (oldest dropped first; "
    "the newest is kept whatever its size).",
)
@FRAME_ANCESTOR_OPTION
def serve_command(**options: Any) -> None:
    """Serve the HTTP API: POST /v1/evaluate (one evaluation, judged by the judge named
    here), POST /v1/runs and GET /v1/runs/ID; OpenAPI at /openapi.json; the viewer at
    /view/ and the playground at /play/ (edit a contract, try it on one case, save it
    into --contracts). Ctrl-C stops it (exit 0)."""
    try:
        from verifier.server.serve import serve, settings_from_options
    except ImportError:
        fail("verifier serve needs FastAPI and uvicorn: pip install 'verifier-llm[serve]'")
    from verifier.errors import VerifierError

    judge = {
        "provider": options.pop("provider"),
        "model": options.pop("model"),
        "base_url": options.pop("base_url"),
        "max_tokens": options.pop("max_tokens"),
        "config": options.pop("config_path"),
        "name": options.pop("judge_name"),
    }
    options["store"] = store_target(options["store"])
    try:
        settings, notes = settings_from_options(judge_options=judge, **options)
        for note in notes:
            click.echo(note, err=True)
        with stops_on_ctrl_c("server"):
            serve(settings, ready=lambda url: click.echo(f"serving the API on {url}", err=True))
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
