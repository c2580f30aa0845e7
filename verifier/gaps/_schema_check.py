"""Validating rows against the packaged ``verifier.gap-row.v1`` schema, fast.

The audit validates every row against the published schema file, not the ``GapRow``
model: an auditor trusts the schema, and a model change must not silently change what
an old store is held to. ``jsonschema`` in pure Python costs ~200 us a row, too slow
for million-row stores, so when the compiled ``jsonschema_rs`` validator is installed
it answers the common case (a valid row) and ``jsonschema`` only explains failures,
which keeps messages identical whichever is present. ``all_valid`` asks about a batch
of rows in one call (an array of rows against the same row schema), which spares the
compiled validator a fifth of its cost per row; only a batch that fails is looked at
row by row.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

SCHEMA_RESOURCE = "gap-row.schema.json"


class RowSchemaCheck:
    """The gap-row schema, compiled once; ``first_error`` explains an invalid row."""

    def __init__(self, schema: dict[str, Any]) -> None:
        Draft202012Validator.check_schema(schema)
        self.schema = schema
        self._validator = Draft202012Validator(schema)
        fast = _fast_is_valid(schema)
        self.accelerated = fast is not None
        """Whether the compiled ``jsonschema_rs`` validator answers valid rows."""
        self.is_valid: Callable[[Any], bool] = fast or self._validator.is_valid
        """Whether a row is valid, as fast as the installed validators allow."""
        fast_all = _fast_is_valid(_array_of(schema)) if fast is not None else None
        self.all_valid: Callable[[list[Any]], bool] = fast_all or self._each_valid
        """Whether every row of a list is valid (``True`` for an empty list)."""

    def first_error(self, row: Any) -> str | None:
        """Returns ``None`` for a valid row, else ``"<path>: <what is wrong>"``."""
        if self.is_valid(row):
            return None
        error = best_match(self._validator.iter_errors(row))
        if error is None:  # the two validators disagree; trust jsonschema
            return None
        where = "/".join(str(part) for part in error.absolute_path) or "(row)"
        return f"{where}: {error.message.splitlines()[0][:200]}"

    def _each_valid(self, rows: list[Any]) -> bool:
        return all(map(self.is_valid, rows))


@functools.cache
def packaged_row_schema() -> RowSchemaCheck:
    """The check built from the schema file shipped in ``verifier.gaps``, built once."""
    text = resources.files("verifier.gaps").joinpath(SCHEMA_RESOURCE).read_text("utf-8")
    return RowSchemaCheck(json.loads(text))


def _array_of(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema for a list of instances of ``schema`` (embedded whole, ``$id`` and all)."""
    dialect = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    return {"$schema": dialect, "type": "array", "items": schema}


def _fast_is_valid(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    try:
        jsonschema_rs = importlib.import_module("jsonschema_rs")
    except ImportError:
        return None
    is_valid: Callable[[Any], bool] = jsonschema_rs.validator_for(schema).is_valid
    return is_valid
