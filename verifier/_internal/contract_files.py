"""Which YAML files are contracts: the one rule ``verifier check DIR`` and the pytest
plugin share.

A contract is a YAML mapping with a top-level ``contract:`` key. Other YAML files that
live beside contracts (a judges file for ``verifier evaluate``, a promptfoo or CI
configuration, a schema written as YAML) have no such key and are skipped; recordings
and cases are JSONL, never YAML. The key is looked for in the text rather than by
parsing, so a contract too broken to parse is still recognised and its problems are
reported instead of the file being silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

SUFFIXES: Final = (".yaml", ".yml")
_CONTRACT_KEY: Final = re.compile(rb"""^["']?contract["']?[ \t]*:""", re.MULTILINE)
_HEAD_BYTES: Final = 1 << 20


def is_contract(path: Path) -> bool:
    """Whether a YAML file has a top-level ``contract:`` key (broken ones too, so that
    their problems are reported rather than the file silently ignored)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return False
    return _CONTRACT_KEY.search(head) is not None


def yaml_files_under(directory: Path, unreadable: list[tuple[Path, str]]) -> Iterator[Path]:
    """Every ``.yaml`` and ``.yml`` file under ``directory``, in sorted order, leaving
    out hidden directories (``.git``, ``.venv``, ``.verifier``), hidden files and
    links to directories (which could lead in a circle).

    Args:
        directory: Where to look.
        unreadable: Receives each directory that could not be listed, with the reason,
            so that a caller can say so rather than skip its contracts silently.
    """
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        unreadable.append((directory, exc.strerror or str(exc)))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if not entry.is_symlink():
                yield from yaml_files_under(entry, unreadable)
        elif entry.suffix in SUFFIXES and entry.is_file():
            yield entry
