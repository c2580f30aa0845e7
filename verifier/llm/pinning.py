"""What a pinned model id looks like, per provider, and which endpoints are local.

A judge's verdicts can be reproduced only while the model behind its id stays the
same. Providers mark their fixed snapshots by a date in the id (anthropic
``claude-sonnet-4-5-20250929``, openai ``gpt-4o-2024-08-06``); an id without one
(``claude-sonnet-4-0``, ``gpt-4o``) may be moved to a new snapshot at any time. Each
provider's registry entry holds its ``PinnedForm``, and the contract lint refuses a
judge model that does not have it.

A model served by an OpenAI-compatible server on this machine or a private network
(vLLM, Ollama, llama.cpp) is named however its operator chose: there is no dated
form to ask for, and the id the server reports serving is what the triple records.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = ["ANTHROPIC_FORM", "OPENAI_FORM", "PinnedForm", "is_local_endpoint"]


def _never(model: str) -> bool:
    return False


@dataclass(frozen=True)
class PinnedForm:
    """How a provider's pinned snapshot ids look.

    Attributes:
        pattern: A full match means the id names a fixed snapshot.
        shape: The dated suffix in words, for messages (``-YYYYMMDD``).
        undated_pinned: Ids that are fixed snapshots although undated (a provider
            that stopped dating its newest models); by default none.
    """

    pattern: re.Pattern[str]
    shape: str
    undated_pinned: Callable[[str], bool] = field(default=_never)

    def holds(self, model: str) -> bool:
        """Whether ``model`` names a fixed snapshot of this provider."""
        return self.pattern.fullmatch(model) is not None or self.undated_pinned(model)


ANTHROPIC_FORM = PinnedForm(re.compile(r".+-[0-9]{8}"), "-YYYYMMDD")
OPENAI_FORM = PinnedForm(re.compile(r".+-[0-9]{4}-[0-9]{2}-[0-9]{2}"), "-YYYY-MM-DD")

_LOCAL_NAMES = ("localhost", "host.docker.internal")


def is_local_endpoint(base_url: str | None) -> bool:
    """Whether ``base_url`` points at this machine or a private network.

    Loopback, private and link-local addresses, ``localhost`` (and ``*.localhost``)
    count; any other host name is taken as a public service.
    """
    if not base_url:
        return False
    try:
        host = urlsplit(base_url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
