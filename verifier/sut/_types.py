"""What every kind of system under test returns for one call, and the secret mask."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

_TAIL = 400
# Names of variables whose values are secrets: keys, tokens, passwords (DB_PASS,
# MYSQL_PWD), connection strings (SENTRY_DSN), cookies and sessions, credentials.
_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASS|PWD|CREDENTIAL|AUTH|DSN|COOKIE|SESSION", re.IGNORECASE
)
# Names that match but hold no secret, and whose values (a directory, a desktop name)
# would otherwise be masked wherever they appear in a message.
_NOT_SECRET = re.compile(
    r"(OLD)?PWD|DESKTOP_SESSION|SESSION_MANAGER|XDG_.*|DBUS_SESSION_BUS_ADDRESS", re.IGNORECASE
)
# Shorter values are not masked: replacing every "on" or "1234" in a message would
# garble it without hiding anything worth hiding (a real secret is longer).
_MIN_SECRET = 6


@dataclass(frozen=True, slots=True)
class Produced:
    """One call's outcome.

    Attributes:
        value: What the system returned: text from a command or a model, any value
            from a Python function (``None`` with an error).
        error: Why no output was produced, one line, secrets masked.
        call: What a reviewer needs about the call (duration, exit code, served
            model and usage), recorded in the rows' evidence.
    """

    value: Any = None
    error: str | None = None
    call: dict[str, Any] = field(default_factory=dict)


class Caller(Protocol):
    """Runs the system under test on one input."""

    mask: SecretMask
    """Hides the secrets this system can see in any text about it."""

    def describe(self) -> dict[str, Any]:
        """The system's identity for the evidence: kind, command, function or model."""
        ...

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced: ...

    async def aclose(self) -> None: ...


def is_secret_name(name: str) -> bool:
    """Whether a variable so named holds a secret (its value is masked)."""
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET.fullmatch(name)


class SecretMask:
    """Replaces secret values (of variables named like keys, tokens or passwords, and
    any value given explicitly) by ``***`` in text bound for rows and logs.

    Values shorter than six characters are left alone (see ``_MIN_SECRET``)."""

    def __init__(self, environ: Mapping[str, str], extra: Iterable[str] = ()) -> None:
        values = {v for k, v in environ.items() if is_secret_name(k)}
        values.update(extra)
        # Longest first, so a secret containing another is masked whole.
        self._values = sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, "***")
        return text


def one_line_tail(text: str, mask: SecretMask) -> str:
    """The end of ``text`` on one line, masked: what is shown of a failing system's stderr."""
    flat = " ".join(mask(text).split())
    return flat if len(flat) <= _TAIL else "…" + flat[-_TAIL:]
