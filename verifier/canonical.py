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

_ORJSON_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def canonical_json(value: Any) -> bytes:
    """Returns sorted-key, compact UTF-8 JSON for ``value``.

    Falls back to the standard library for values orjson refuses (integers beyond
    64 bits), so any JSON-compatible value can be made canonical.
    """
    try:
        return orjson.dumps(value, option=_ORJSON_OPTS)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        ).encode("utf-8")


def normalise_numbers(value: Any) -> Any:
    """Returns ``value`` with integral floats turned into ints (``1.0`` becomes ``1``)."""
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
