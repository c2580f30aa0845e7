"""Starting the API under uvicorn: settings from command-line options, the socket, the
server.

The socket is bound here rather than by uvicorn so that a taken port is a one-line
error and ``--port 0`` can say which port it got. uvicorn's own logging is left off
(``log_config=None``): its records go through verifier's logging, which redacts
secrets.

uvicorn's settings are chosen for the cost of a request (``bench/server.py`` measures
it): httptools parses HTTP when installed (half h11's CPU per request); the event loop
is asyncio's, never uvloop even when installed (under 128 or more keep-alive clients
uvloop served some connections seconds late, p99 over 1 s where asyncio's was under
0.15 s); no access log and no proxy headers (the API reads neither the client's
address nor ``X-Forwarded-*``), each a layer less on every request.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from verifier.server.settings import TOKEN_ENV, ServeError, ServerSettings

if TYPE_CHECKING:
    import uvicorn

    from verifier.judge.config import JudgeChoice
    from verifier.judge.phase import JudgeMode
    from verifier.server.transport import ReadDeadline

Parser = Literal["httptools", "h11"]


def settings_from_options(
    *,
    host: str,
    port: int,
    token: str | None,
    store: str,
    contracts_dir: Path | None,
    judge_options: dict[str, Any],
    judge_mode: JudgeMode | None,
    recordings: Path | None,
    max_body: int,
    max_runs: int,
    read_timeout: float,
    allowed_hosts: tuple[str, ...],
    max_results: int = ServerSettings.max_results,
    max_cases: int = ServerSettings.max_cases,
    max_assertions: int = ServerSettings.max_assertions,
    kept_runs: int = ServerSettings.kept_runs,
    kept_bytes: int = ServerSettings.kept_bytes,
    frame_ancestors: tuple[str, ...] = (),
) -> tuple[ServerSettings, list[str]]:
    """Checked settings, and lines to show at start (a deprecated judge model, a judge
    that will replay for want of a key).

    Args:
        judge_options: ``provider``, ``model``, ``base_url``, ``max_tokens``, ``config``
            and ``name`` as :func:`verifier.judge.config.choose_judge` takes them; all
            unset means no judge.

    Raises:
        VerifierError: The settings or the judge cannot be used.
    """
    from verifier.judge.config import choose_judge

    judge = choose_judge(**judge_options) if any(judge_options.values()) else None
    settings = ServerSettings(
        host=host,
        port=port,
        token=token or os.environ.get(TOKEN_ENV) or None,
        store=store,
        contracts_dir=contracts_dir,
        judge=judge,
        judge_mode=judge_mode,
        recordings=recordings,
        max_body=max_body,
        max_runs=max_runs,
        read_timeout=read_timeout,
        allowed_hosts=allowed_hosts,
        max_results=max_results,
        max_cases=max_cases,
        max_assertions=max_assertions,
        kept_runs=kept_runs,
        kept_bytes=kept_bytes,
        frame_ancestors=frame_ancestors,
    )
    settings.check()
    notes = [f"warning: {w}" for w in (judge.warnings if judge else ())]
    if judge is None:
        notes.append("note: no judge given, so POST /v1/evaluate answers 503")
    elif judge_mode is None:
        notes += [f"note: {why} for POST /v1/evaluate" for why in [_replay_reason(judge)] if why]
    return settings, notes


def _replay_reason(judge: JudgeChoice) -> str | None:
    """Why evaluations will replay rather than call the judge, if they will."""
    from verifier.evaluate import Assertion, EvaluationInput, evaluation_contract
    from verifier.judge.setup import default_mode

    probe = EvaluationInput(
        agent_input="", agent_output="", assertions=(Assertion(id="a", instruction="a"),)
    )
    return default_mode(evaluation_contract(probe, judge, Path("probe")))[1]


def bind(settings: ServerSettings) -> socket.socket:
    """A listening socket on the settings' host and port.

    Raises:
        ServeError: The address cannot be bound.
    """
    host = settings.host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on connections whose socket
    # says it is TCP. Without it a response written as head then body waits for the
    # client's delayed ACK (about 40 ms) on every keep-alive request.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, settings.port))
        # A backlog as deep as uvicorn's own: a burst of new connections beyond it has
        # its SYNs dropped and retried after 1, 3, 7... seconds.
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ServeError(
            f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}"
        ) from None
    sock.set_inheritable(True)
    return sock


def default_parser() -> Parser:
    """httptools when it is installed, else h11."""
    return "httptools" if importlib.util.find_spec("httptools") else "h11"


def protocol_with(read_timeout: float, parser: Parser | None = None) -> type[ReadDeadline]:
    """The protocol class for uvicorn's ``http`` setting, with this read deadline.

    Args:
        read_timeout: Seconds a connection has to deliver each whole request.
        parser: The HTTP parser (default: :func:`default_parser`).
    """
    from verifier.server.transport import ReadDeadlineProtocol

    base: type[ReadDeadline] = ReadDeadlineProtocol
    if (parser or default_parser()) == "httptools":
        from verifier.server.transport_httptools import HttpToolsDeadlineProtocol

        base = HttpToolsDeadlineProtocol
    return type(base.__name__, (base,), {"read_timeout": read_timeout})


def make_server(
    settings: ServerSettings,
    factory: Callable[[ServerSettings], Any] | None = None,
    *,
    parser: Parser | None = None,
) -> uvicorn.Server:
    """The uvicorn server of the API (not yet running).

    Args:
        settings: Checked settings.
        factory: Builds the application (default: the API's ``create_app``).
        parser: The HTTP parser (default: :func:`default_parser`).
    """
    import uvicorn

    from verifier.server.app import create_app

    config = uvicorn.Config(
        (factory or create_app)(settings),
        http=protocol_with(settings.read_timeout, parser),
        loop="asyncio",
        proxy_headers=False,
        access_log=False,
        log_config=None,
        server_header=False,
        timeout_graceful_shutdown=10,
        lifespan="on",
    )
    return uvicorn.Server(config)


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


def serve(
    settings: ServerSettings,
    *,
    ready: Callable[[str], None],
    factory: Callable[[ServerSettings], Any] | None = None,
) -> None:
    """Serves until interrupted.

    Args:
        settings: Checked settings.
        ready: Receives the base URL once the socket is bound.
        factory: Builds the application (default: the API's; ``verifier view`` passes
            the viewer's).

    Raises:
        ServeError: The address cannot be bound.
    """
    sock = bind(settings)
    server = make_server(settings, factory)
    ready(url_of(sock))
    with sock:
        server.run(sockets=[sock])
