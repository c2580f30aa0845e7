"""What kind of JSON value something is, in the words messages use."""

from __future__ import annotations

from typing import Any

# In this order: a bool is an int to isinstance.
_KINDS: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a number"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def json_kind(value: Any) -> str:
    """``null``, ``a boolean``, ``an integer``, ``a number``, ``a string``, ``an array``
    or ``an object``: a decoded JSON value named as its writer knows it, never by the
    Python type it became (``NoneType``, ``list``)."""
    for kind, words in _KINDS:
        if isinstance(value, kind):
            return words
    return type(value).__name__
