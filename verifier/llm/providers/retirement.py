"""When a judge's model retires, as the provider tables publish it.

A provider entry carries its table of model id -> retirement date text (the anthropic
SDK ships one: "November 30th, 2026"); ``verifier check`` warns ahead of the date and
``verifier judges`` lists it. Both read it through here.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from verifier.llm.providers.registry import provider_entry, provider_names

__all__ = ["parse_retirement", "retirement_date"]

_DATE: Final = re.compile(
    r"^(?P<month>[A-Za-z]+) (?P<day>\d{1,2})(?:st|nd|rd|th)?, (?P<year>\d{4})$"
)


def parse_retirement(text: str) -> dt.date | None:
    """Parses the SDK's "November 30th, 2026" style dates (``None`` if unreadable)."""
    match = _DATE.match(text.strip())
    if not match:
        return None
    try:
        return dt.datetime.strptime(
            f"{match['month']} {match['day']} {match['year']}", "%B %d %Y"
        ).date()
    except ValueError:
        return None


def retirement_date(model: str) -> dt.date | None:
    """The day ``model`` retires, from the first provider table that lists it with a
    readable date; ``None`` when no table does (a current model, or one no provider
    publishes dates for). Stored verdicts do not name their provider, so every
    registered provider's table is asked (a cloud platform's under the Anthropic id its
    model id stands for)."""
    for name in provider_names():
        when = provider_entry(name).retirement(model)
        date = parse_retirement(when) if when is not None else None
        if date is not None:
            return date
    return None
