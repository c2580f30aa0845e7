"""Canonical JSON bytes and their SHA-256, shared by hashing everywhere in verifier.

Canonical here means: keys sorted, no insignificant whitespace, UTF-8. For hashes of
*parameters* (``sampling_sha``) numbers are normalised first so ``0`` and ``0.0`` hash
the same; gap rows are hashed over the exact bytes that are stored, so they need no
normalisation and skip it for speed.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import orjson

CANONICAL_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
"""The orjson options of ``canonical_json``, for a hot loop that calls orjson itself."""


def canonical_json(value: Any) -> bytes:
    """Returns sorted-key, compact UTF-8 JSON for ``value``.

    Falls back to the standard library for values orjson refuses (integers beyond
    64 bits), so any JSON-compatible value can be made canonical.
    """
    try:
        return orjson.dumps(value, option=CANONICAL_OPTIONS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        ).encode("utf-8")


# A run of 19 digits is the shortest that can spell an integer outside orjson's
# 64-bit range (-9223372036854775809 has 19): orjson would read it as a float. Runs
# are found by mapping every digit to 0 and looking for nineteen of them, a few times
# faster than a regular expression.
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19


def loads_exact(data: bytes | str) -> Any:
    """Parses JSON like ``orjson.loads``, keeping every integer exact.

    orjson reads an integer beyond 64 bits as the nearest float, silently changing
    the value; a document that may hold one is read again by the standard library,
    which keeps Python ints. orjson parses first, so what is refused is the same.

    Raises:
        orjson.JSONDecodeError: ``data`` is not valid JSON.
    """
    value = orjson.loads(data)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if _LONG_DIGITS not in raw.translate(_DIGITS_TO_ZERO):
        return value
    return json.loads(data)


# The types ``normalise_numbers`` returns as they are, looked up by exact type: a
# case's identity normalises every value of every case (``verifier.compare``), so the
# common ones skip the call and the isinstance chain.
_AS_IS = frozenset({str, int, bool, type(None)})


def normalise_numbers(value: Any) -> Any:
    """Returns ``value`` with integral floats turned into ints (``1.0`` becomes ``1``)."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    if kind is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _AS_IS else normalise_numbers(v)
            for k, v in value.items()
        }
    if kind is list:
        return [v if type(v) in _AS_IS else normalise_numbers(v) for v in value]
    return _normalise_other(value)


def _normalise_other(value: Any) -> Any:
    """``normalise_numbers`` of a float, a tuple or a subclass of a JSON type."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        return value
    if isinstance(value, dict):
        return {str(k): normalise_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalise_numbers(v) for v in value]
    return value


def sha256_hex(data: bytes | str) -> str:
    """Returns the hex SHA-256 of bytes, or of a string's UTF-8 encoding."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def params_sha256(params: Any) -> str:
    """Hash of generation parameters: canonical JSON after number normalisation."""
    return sha256_hex(canonical_json(normalise_numbers(params)))
