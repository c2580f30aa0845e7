"""Finding a key written twice in one JSON object of a case line.

JSON parsers keep the last of two equal keys, so ``{"id": "a", "output": "ok",
"output": "leaked"}`` would be checked as whichever came last, silently. Contracts
refuse duplicate keys; a case line that has one is unusable the same way.

orjson cannot report duplicates, and the standard library's hook that can costs
several times orjson's parse. The cheap test: every ``"`` of a line is a string's
delimiter or an escaped quote inside one, and orjson writes the parsed value back with
the same quotes, so the counts match exactly unless a member was dropped (which loses
its key's two quotes at least). Only a line where they differ, or one orjson cannot
write back, is parsed again to name the key.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["duplicate_key"]

_QUOTE = b'"'
_ESCAPED_QUOTE = b"\\u0022"  # written back as \", one quote more than the line had


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def duplicate_key(raw: bytes, value: Any) -> str | None:
    """The first key written twice in one object of the JSON text ``raw`` (parsed as
    ``value``), or ``None`` when every object's keys are distinct."""
    if _ESCAPED_QUOTE not in raw:
        try:
            written = orjson.dumps(value)
        except (TypeError, orjson.JSONEncodeError):
            pass  # an integer past 64 bits: read again below
        else:
            if written.count(_QUOTE) == raw.count(_QUOTE):
                return None
    try:
        json.loads(raw, object_pairs_hook=_distinct)
    except _Duplicate as found:
        return found.key
    except ValueError:
        pass  # what orjson took and the standard library does not: no duplicate seen
    return None


def _distinct(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, item in pairs:
        if key in found:
            raise _Duplicate(key)
        found[key] = item
    return found
