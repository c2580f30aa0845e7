"""Which ``Host`` headers the API answers: the defence against DNS rebinding.

A web page can make a browser send requests to a server on the browser's own machine
by pointing its domain at 127.0.0.1 once loaded (DNS rebinding); the browser then
treats the local server as the page's own origin, so the page reads the answers too.
What gives it away is the ``Host`` header, which still names the page's domain. So
the API answers only requests whose ``Host`` names this server: a loopback name or
address, the address it is bound to (any IP address when bound to all of them, since
an address typed as such cannot be rebound), and the names the operator adds for a
proxy in front of it (see ADR 0018).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Final

REFUSED: Final = (
    "this server does not answer to the Host of this request; to serve a name, start "
    "it with --allowed-host NAME"
)

_NAME = re.compile(r"[a-z0-9_.-]+\Z")
_WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` value such as ``localhost:8000`` or ``[::1]``,
    lower-cased, an IPv6 address without brackets; ``None`` when it is neither a
    name nor an address with an optional port.

    Args:
        value: The header's value, or an ``--allowed-host`` entry.
    """
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or not _is_ip(name, version=6):
            return None
        name = str(ipaddress.ip_address(name))  # one spelling of each address
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
        if not _NAME.match(name):
            return None
    if not rest:
        return name, None
    digits = rest[1:]
    if rest[0] != ":" or not (digits.isascii() and digits.isdigit()) or int(digits) > 65535:
        return None
    return name, int(digits)


@dataclass(frozen=True)
class HostCheck:
    """The ``Host`` values a server answers.

    Attributes:
        bound: The address or name the server is bound to (``0.0.0.0``, ``::``: all).
        allowed: Added ``(name, port)`` pairs; a port of ``None`` allows any port.
    """

    bound: str
    allowed: frozenset[tuple[str, int | None]] = frozenset()

    def accepts(self, header: bytes | None) -> bool:
        """Whether a request with this ``Host`` header (``None``: none) is served."""
        if header is None:
            return False
        split = split_host(header.decode("latin-1"))
        if split is None:
            return False
        name, port = split
        if (name, None) in self.allowed or (name, port) in self.allowed:
            return True
        if name in ("localhost", self.bound):
            return True
        return _is_ip(name) and (ipaddress.ip_address(name).is_loopback or self.bound in _WILDCARDS)


def host_check(host: str, allowed_hosts: tuple[str, ...]) -> HostCheck:
    """The check for a server bound to ``host`` that also answers ``allowed_hosts``
    (``--allowed-host`` entries, already checked)."""
    allowed = frozenset(filter(None, map(split_host, allowed_hosts)))
    bound = host.strip("[]").lower()
    if _is_ip(bound):
        bound = str(ipaddress.ip_address(bound))
    return HostCheck(bound=bound, allowed=allowed)


def _is_ip(name: str, *, version: int | None = None) -> bool:
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return version is None or address.version == version
