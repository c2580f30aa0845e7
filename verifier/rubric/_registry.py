"""The registry of rubric predicates: read-only, each family imported when first asked.

Each predicate family lives in its own module and exports ``ENTRIES``, a tuple of
``PredicateEntry``. ``FAMILIES`` lists every predicate's name with its family's module,
so that a contract naming two predicates imports two families, not all of them (the
re2, jsonschema_rs and orjson bindings come with some). Adding a predicate means adding
it to a family module and its name here; ``tests/rubric/test_registry.py`` fails when
the two disagree. The contract models, the JSON Schema and the docs all read from here.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Annotated, Any, Union

from pydantic import Field

from verifier._internal.lazy_mapping import LazyMapping
from verifier.rubric._base import PredicateEntry

FAMILIES: Mapping[str, str] = {
    "regex": "_regex",
    "contains": "_text",
    "not_contains": "_text",
    "enum": "_enum",
    "range": "_range",
    "length": "_length",
    "json_schema": "_json_schema",
    "present": "_presence",
    "citation": "_citation",
    "similar": "_similar",
    "equals": "_equality",
    "sha256": "_equality",
    "all": "_combinators",
    "any": "_combinators",
    "not": "_combinators",
}
"""Every predicate's name, in the order the docs list them, with its family's module
(under ``verifier.rubric``)."""


@functools.cache
def _entries(family: str) -> dict[str, PredicateEntry]:
    module = importlib.import_module(f"verifier.rubric.{family}")
    return {entry.name: entry for entry in module.ENTRIES}


REGISTRY: Mapping[str, PredicateEntry] = LazyMapping(
    FAMILIES, lambda name: _entries(FAMILIES[name])[name]
)
"""Every rubric predicate by its YAML name."""


@functools.cache
def predicate_spec_union() -> Any:
    """Any predicate spec, discriminated by its ``rubric`` key (the items of a
    combinator); imports every family."""
    specs: Any = tuple(REGISTRY[name].spec for name in FAMILIES)
    return Annotated[Union[specs], Field(discriminator="rubric")]  # noqa: UP007
