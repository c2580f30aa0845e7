"""What a pinned model id looks like, per provider, and which endpoints are local.

A judge's verdicts can be reproduced only while the model behind its id stays the
same. Providers mark their fixed snapshots by a date in the id (anthropic
``claude-sonnet-4-5-20250929``, openai ``gpt-4o-2024-08-06``, and in openai's older
form, month and day only, ``gpt-4-0613`` and ``gpt-3.5-turbo-0125``); an id without
one (``claude-sonnet-4-0``, ``gpt-4o``) may be moved to a new snapshot at any time.
Each provider's registry entry holds its ``PinnedForm``, and the contract lint
refuses a judge model that does not have it, or whose date is no calendar date
(``gpt-4o-2024-13-45`` names no snapshot, whatever its shape).

A model served by an OpenAI-compatible server on this machine or a private network
(vLLM, Ollama, llama.cpp) is named however its operator chose: there is no dated
form to ask for, and the id the server reports serving is what the triple records.
"""

from __future__ import annotations

import calendar
import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

__all__ = [
    "ANTHROPIC_FORM",
    "BEDROCK_FORM",
    "DEPLOYMENT_FORM",
    "OPENAI_FORM",
    "VERTEX_FORM",
    "DatedForm",
    "PinnedForm",
    "is_local_endpoint",
]

# A month and day without a year (openai's -MMDD) are checked against a leap year,
# so 0229 counts as a date.
_LEAP_YEAR = 2000


def _never(model: str) -> bool:
    return False


@dataclass(frozen=True)
class DatedForm:
    """One way a provider dates its snapshot ids.

    Attributes:
        pattern: A full match means the id has this form; its named groups ``year``
            (optional), ``month`` and ``day`` are the date, which must be a real one.
        shape: The form in words, for messages (``-YYYYMMDD``).
    """

    pattern: re.Pattern[str]
    shape: str

    def date_problem(self, match: re.Match[str]) -> str | None:
        """Why the date ``match`` found is no calendar date, or ``None``."""
        year = int(match["year"]) if match.groupdict().get("year") else _LEAP_YEAR
        month, day = int(match["month"]), int(match["day"])
        if year < 1:
            return "there is no year 0"
        if not 1 <= month <= 12:
            return f"there is no month {month}"
        if not 1 <= day <= calendar.monthrange(year, month)[1]:
            return f"{calendar.month_name[month]} has no day {day}"
        return None


@dataclass(frozen=True)
class PinnedForm:
    """How a provider's pinned snapshot ids look.

    Attributes:
        forms: The dated forms, tried in order; the first that matches decides.
        undated_pinned: Ids that are fixed snapshots although undated (a provider
            that stopped dating its newest models); by default none.
        never_pinned: Why no id of the provider names a fixed model, with ``{model}``
            (an Azure OpenAI deployment name: the deployment picks the model version);
            every id is then refused with it, and only ``pinned: false`` accepts one.
    """

    forms: tuple[DatedForm, ...]
    undated_pinned: Callable[[str], bool] = field(default=_never)
    never_pinned: str | None = None

    @property
    def shape(self) -> str:
        """The dated forms in words (``-YYYY-MM-DD, or -MMDD for gpt-4 ...``)."""
        return ", or ".join(form.shape for form in self.forms)

    def unpinned(self, model: str, provider: str) -> str | None:
        """Why ``model`` names no fixed snapshot of ``provider``, or ``None``."""
        if self.never_pinned is not None:
            return self.never_pinned.format(model=repr(model))
        if self.undated_pinned(model):
            return None
        for form in self.forms:
            match = form.pattern.fullmatch(model)
            if match is None:
                continue
            problem = form.date_problem(match)
            if problem is None:
                return None
            date = match.group("date")
            return (
                f"model {model!r} ends in {date!r}, which is no calendar date ({problem}), "
                f"so it names no snapshot; pin the dated id of a real {provider} snapshot "
                f"({form.shape}) so verdicts stay reproducible"
            )
        return (
            f"model {model!r} is not a pinned snapshot ({provider} snapshot ids end in "
            f"{self.shape}) and may move to a new snapshot at any time; "
            "pin a dated snapshot so verdicts stay reproducible"
        )


ANTHROPIC_FORM = PinnedForm(
    (
        DatedForm(
            re.compile(r".+-(?P<date>(?P<year>[0-9]{4})(?P<month>[0-9]{2})(?P<day>[0-9]{2}))"),
            "-YYYYMMDD",
        ),
    )
)
OPENAI_FORM = PinnedForm(
    (
        DatedForm(
            re.compile(r".+-(?P<date>(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2}))"),
            "-YYYY-MM-DD",
        ),
        # The gpt-4 and gpt-3.5-turbo families' snapshots carry month and day only
        # (gpt-4-0613, gpt-4-1106-preview, gpt-3.5-turbo-16k-0613); newer families
        # never used that form, so gpt-4o-0806 stays refused.
        DatedForm(
            re.compile(
                r"(?:gpt-4(?:-32k)?|gpt-3\.5-turbo(?:-16k|-instruct)?)"
                r"-(?P<date>(?P<month>[0-9]{2})(?P<day>[0-9]{2}))(?:-vision)?(?:-preview)?"
            ),
            "-MMDD for gpt-4 and gpt-3.5-turbo",
        ),
    )
)

# The model version of an Azure OpenAI deployment is set on the deployment (and moved
# by its upgrade policy), not by the name a judge calls; the response names the model
# that served, which the triple records and audit compares across runs (ADR 0076).
DEPLOYMENT_FORM = PinnedForm(
    (),
    never_pinned=(
        "model {model} is an Azure OpenAI deployment name, not a pinned model: the "
        "deployment picks the model version and may change it (each row records the "
        "model the response names, and audit reports a change as judge drift)"
    ),
)

BEDROCK_GEOGRAPHIES = "us|us-gov|eu|apac|jp|au|ca|global"
"""The prefixes of Bedrock's cross-region inference profiles (``us.anthropic.claude-...``)."""

# Bedrock names a Claude snapshot ``anthropic.<anthropic id>-v<N>[:<M>]``, an inference
# profile putting its geography before it; Vertex AI puts the date after an ``@``.
BEDROCK_FORM = PinnedForm(
    (
        DatedForm(
            re.compile(
                rf"(?:(?:{BEDROCK_GEOGRAPHIES})\.)?anthropic\..+"
                r"-(?P<date>(?P<year>[0-9]{4})(?P<month>[0-9]{2})(?P<day>[0-9]{2}))"
                r"-v[0-9]+(?::[0-9]+)?"
            ),
            "-YYYYMMDD-vN:M (anthropic.claude-sonnet-4-5-20250929-v1:0, or with an "
            "inference profile's us., eu., apac. or global. before it)",
        ),
    )
)
VERTEX_FORM = PinnedForm(
    (
        DatedForm(
            re.compile(r"[^@]+@(?P<date>(?P<year>[0-9]{4})(?P<month>[0-9]{2})(?P<day>[0-9]{2}))"),
            "@YYYYMMDD (claude-sonnet-4-5@20250929)",
        ),
    )
)

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
