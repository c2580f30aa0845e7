"""Structured logging for verifier: readable on a terminal, JSON lines in CI.

Every log line, ours or one from a library through :mod:`logging`, passes the
:func:`redact_secrets` processor (``verifier._internal.redaction``) before it is rendered, so
API keys and bearer tokens never reach stderr or a CI log, whatever a caller binds to
an event.

structlog is imported when the first event is logged at a level that is shown, or
the first standard-library record is formatted, not by :func:`configure_logging` nor
by :func:`get_logger`: importing it costs a tenth of
a second (its development console and rich come with it), which a command that logs
nothing, such as ``verifier check``, need not pay.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, Literal, TextIO, cast

from verifier._internal.redaction import (
    REDACTED,
    is_secret_key,
    redact,
    redact_secrets,
    redact_text,
)
from verifier._internal.terminal import printable

if TYPE_CHECKING:
    from structlog.typing import EventDict, FilteringBoundLogger, Processor, WrappedLogger

__all__ = [
    "REDACTED",
    "LogFormat",
    "Logger",
    "configure_logging",
    "get_logger",
    "is_configured",
    "is_secret_key",
    "redact",
    "redact_secrets",
    "redact_text",
    "route_to_standard_logging",
]

LogFormat = Literal["auto", "console", "json"]

# Chatty libraries whose INFO lines (one per HTTP request) drown a run's own logs.
_QUIET_LIBRARIES = ("httpx", "httpcore")


def configure_logging(fmt: LogFormat = "auto", level: str = "info") -> None:
    """Sends structlog and standard-library logs to stderr, rendered and redacted.

    Args:
        fmt: ``console`` for people, ``json`` for one JSON object per line; ``auto``
            picks JSON when ``CI`` is set or stderr is not a terminal.
        level: Lowest level logged: ``debug``, ``info``, ``warning``, ``error``
            or ``critical``.

    Raises:
        ValueError: ``fmt`` or ``level`` is not one of the names above.
    """
    global _pending
    level_no = _level_number(level)
    resolved = _resolve_format(fmt)
    # Decided now: by the first event, a progress bar may stand in for stderr.
    look = (resolved, sys.stderr.isatty() and "NO_COLOR" not in os.environ)
    _route_stdlib_logging(level_no, look)
    _pending = (look, level_no)
    if "structlog" in sys.modules:
        _apply_pending()


# How lines look: JSON or console, and whether console lines have colours.
_Look = tuple[Literal["console", "json"], bool]

# What configure_logging asked for, until structlog is imported to apply it.
_pending: tuple[_Look, int] | None = None


def _apply_pending() -> None:
    global _pending
    if _pending is None:
        return
    # Deferred: see the module's docstring.
    import structlog

    look, level_no = _pending
    _pending = None
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _logger_key,
            _timestamper(),
            structlog.processors.StackInfoRenderer(),
            # Tracebacks become text before redaction, and ConsoleRenderer then
            # prints that text instead of a rich traceback whose locals could
            # show a key.
            structlog.processors.format_exc_info,
            redact_secrets,
            _renderer(look),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level_no),
        logger_factory=structlog.WriteLoggerFactory(file=_current_stderr()),
        # Off so a second configure_logging (tests, embedded use) also reaches
        # module-level loggers that have already logged.
        cache_logger_on_first_use=False,
    )


def is_configured() -> bool:
    """Returns whether structlog is configured, or :func:`configure_logging` has been
    called and its configuration waits for structlog's first use."""
    if _pending is not None:
        return True
    if "structlog" not in sys.modules:
        return False
    import structlog

    return structlog.is_configured()


def route_to_standard_logging() -> None:
    """Hands every event to a standard-library logger named after the module that
    logged it, as one redacted ``event key=value ...`` line.

    Handlers and levels stay the host's: under pytest its log capture shows the lines
    beside a failing test, and ``--log-level`` / ``log_cli`` choose how many.
    """
    global _pending
    # Deferred: see the module's docstring.
    import structlog

    _pending = None
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.format_exc_info,
            redact_secrets,
            _event_line,
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
        # Named after the module that logged, not after Logger's frames here.
        logger_factory=structlog.stdlib.LoggerFactory(ignore_frame_names=[__name__]),
        cache_logger_on_first_use=False,
    )


def _event_line(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> str:
    event = event_dict.pop("event", "")
    event_dict.pop("logger_name", None)
    return " ".join([str(event), *(f"{k}={v}" for k, v in event_dict.items())])


def get_logger(name: str) -> Logger:
    """Returns a logger whose events carry ``logger=name``.

    The logger binds lazily, so a module-level ``log = get_logger(__name__)`` obeys
    a :func:`configure_logging` call made later.
    """
    return Logger(name)


class Logger:
    """A structlog logger made at its first event, so a module that makes one at import
    does not import structlog (see the module's docstring).

    Until structlog is imported, an event below the level :func:`configure_logging`
    set is dropped here, as structlog's filtering logger would drop it.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: FilteringBoundLogger | None = None

    def _bound(self) -> FilteringBoundLogger:
        if self._logger is None:
            # Deferred: see the module's docstring.
            import structlog

            _apply_pending()
            # ``logger`` is a parameter of structlog.get_logger itself, so the name
            # travels as ``logger_name`` and _logger_key renames it for the output.
            self._logger = structlog.get_logger(logger_name=self.name)
        return self._logger

    def _log(self, level: int, method: str, event: str, fields: dict[str, Any]) -> None:
        if self._logger is None and _pending is not None and level < _pending[1]:
            return
        getattr(self._bound(), method)(event, **fields)

    def debug(self, event: str, **fields: Any) -> None:
        """Logs ``event`` at DEBUG with ``fields``."""
        self._log(logging.DEBUG, "debug", event, fields)

    def info(self, event: str, **fields: Any) -> None:
        """Logs ``event`` at INFO with ``fields``."""
        self._log(logging.INFO, "info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        """Logs ``event`` at WARNING with ``fields``."""
        self._log(logging.WARNING, "warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        """Logs ``event`` at ERROR with ``fields``."""
        self._log(logging.ERROR, "error", event, fields)

    def exception(self, event: str, **fields: Any) -> None:
        """Logs ``event`` at ERROR with ``fields`` and the exception being handled."""
        self._log(logging.ERROR, "exception", event, fields)


def _logger_key(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
    """Puts a structlog logger's name under ``logger``, where stdlib records have it."""
    name = event_dict.pop("logger_name", None)
    if name is not None:
        event_dict.setdefault("logger", name)
    return event_dict


class _CurrentStderr(io.TextIOBase):
    """Writes to whatever ``sys.stderr`` is at the moment of writing.

    The progress bar and test capture replace ``sys.stderr``; a stream captured
    at configuration time would write under the bar or past the capture.
    """

    def write(self, s: str) -> int:
        return sys.stderr.write(s)

    def flush(self) -> None:
        sys.stderr.flush()


def _current_stderr() -> TextIO:
    # TextIOBase has every method loggers call; typeshed only lacks the TextIO label.
    return cast(TextIO, _CurrentStderr())


class _VerifierHandler(logging.StreamHandler[TextIO]):
    """The root handler installed by :func:`configure_logging` (found again by type)."""


def _route_stdlib_logging(level_no: int, look: _Look) -> None:
    handler = _VerifierHandler(_current_stderr())
    handler.setFormatter(_DeferredFormatter(look))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _VerifierHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level_no)
    for name in _QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(level_no, logging.WARNING))


class _DeferredFormatter(logging.Formatter):
    """structlog's ProcessorFormatter for standard-library records, built for the first."""

    def __init__(self, look: _Look) -> None:
        super().__init__()
        self._look = look
        self._formatter: logging.Formatter | None = None

    def format(self, record: logging.LogRecord) -> str:
        if self._formatter is None:
            self._formatter = _processor_formatter(self._look)
        return self._formatter.format(record)


def _processor_formatter(look: _Look) -> logging.Formatter:
    # Deferred: see the module's docstring.
    import structlog

    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            _timestamper(),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            redact_secrets,
            _renderer(look),
        ],
    )


def _timestamper() -> Processor:
    # Deferred: see the module's docstring.
    import structlog

    return structlog.processors.TimeStamper(fmt="iso", utc=True)


def _resolve_format(fmt: LogFormat) -> Literal["console", "json"]:
    if fmt == "auto":
        ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
        return "json" if ci or not sys.stderr.isatty() else "console"
    if fmt in ("console", "json"):
        return fmt
    raise ValueError(f"unknown log format {fmt!r}; expected auto, console or json")


def _renderer(look: _Look) -> Processor:
    # Deferred: see the module's docstring.
    import structlog

    fmt, colors = look
    if fmt == "json":
        return structlog.processors.JSONRenderer()
    console = structlog.dev.ConsoleRenderer(colors=colors)

    def render(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> Any:
        # Values quote case ids and model output: their escape sequences must not
        # reach the terminal (JSON lines escape them already).
        shown = {k: printable(v) if isinstance(v, str) else v for k, v in event_dict.items()}
        return console(logger, method_name, shown)

    return render


def _level_number(level: str) -> int:
    number = logging.getLevelNamesMapping().get(level.upper())
    if number is None or level.upper() in ("NOTSET", "WARN", "FATAL"):
        raise ValueError(
            f"unknown log level {level!r}; expected debug, info, warning, error or critical"
        )
    return number
