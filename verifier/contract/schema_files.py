"""The schema files a contract names, by the SHA-256 of their bytes.

A ``json_schema`` claim with ``schema_file`` decides by a file the contract's own
hash does not cover: edit the file and the same contract checks something else. A run
records the files' hashes in its options, a gate locks them, ``compare`` says when two
runs read different ones, and ``audit --recheck`` does not re-check a stored verdict
against a file that changed since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from verifier.files import FileRefused

if TYPE_CHECKING:
    from verifier.contract.load import LoadedContract

__all__ = ["RUN_OPTION", "changed_schema_files", "schema_file_hashes", "schema_file_names"]

RUN_OPTION = "schema_files"
"""The run option holding ``{name: sha256}`` of the schema files the run read."""


def schema_file_names(claims: Any) -> Iterator[tuple[str, str]]:
    """``(claim id, schema_file)`` of every ``json_schema`` claim or combinator item
    that names a file, in contract order."""
    for claim in claims:
        for name in _names(claim):
            yield claim.id, name


def _names(spec: Any) -> Iterator[str]:
    name = getattr(spec, "schema_file", None)
    if isinstance(name, str):
        yield name
    for item in getattr(spec, "of", None) or ():
        yield from _names(item)


def schema_file_hashes(loaded: LoadedContract) -> dict[str, str]:
    """``{schema_file: sha256}`` of the files the contract names (empty: none).

    A file that cannot be read now is left out: loading the contract read it, and
    a run reading it again reports its own error.
    """
    hashes: dict[str, str] = {}
    for _, name in schema_file_names(loaded.contract.claims):
        if name in hashes:
            continue
        try:
            path = loaded.files.resolve(name, f"schema_file {name!r}").path
            with path.open("rb") as handle:
                hashes[name] = hashlib.file_digest(handle, "sha256").hexdigest()
        except (OSError, FileRefused):
            continue
    return hashes


def changed_schema_files(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """The names whose hash differs between two ``{name: sha256}`` records, sorted (a
    name in one record only counts as changed)."""
    return sorted(name for name in {*before, *now} if before.get(name) != now.get(name))
