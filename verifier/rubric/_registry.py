"""The registry of rubric predicates: built once at import, then read-only.

Each predicate family lives in its own module and exports ``ENTRIES``, a tuple of
``PredicateEntry``. Adding a predicate means adding it to a family module (or a new
module listed in ``_FAMILIES``); the contract models, the JSON Schema and the docs
test all read from here.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any, Union

from pydantic import Field

from verifier.rubric import (
    _citation,
    _combinators,
    _enum,
    _equality,
    _json_schema,
    _length,
    _presence,
    _range,
    _regex,
    _similar,
    _text,
)
from verifier.rubric._base import PredicateEntry

_FAMILIES = (
    _regex,
    _text,
    _enum,
    _range,
    _length,
    _json_schema,
    _presence,
    _citation,
    _similar,
    _equality,
    _combinators,
)


def _build() -> MappingProxyType[str, PredicateEntry]:
    entries: dict[str, PredicateEntry] = {}
    for family in _FAMILIES:
        for entry in family.ENTRIES:
            if entry.name in entries:
                raise RuntimeError(f"predicate {entry.name!r} registered twice")
            entries[entry.name] = entry
    return MappingProxyType(entries)


REGISTRY: MappingProxyType[str, PredicateEntry] = _build()
"""Every rubric predicate by its YAML name."""

_specs: Any = tuple(entry.spec for entry in REGISTRY.values())
PredicateSpecUnion: Any = Annotated[Union[_specs], Field(discriminator="rubric")]  # noqa: UP007
"""Any predicate spec, discriminated by its ``rubric`` key (used inside combinators)."""

_combinators.bind_item_type(PredicateSpecUnion, REGISTRY)
