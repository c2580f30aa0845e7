"""``--witness FILE`` of ``verifier run`` and ``verifier audit``: the glue between the
commands and ``verifier.gaps.witness``, errors turned into one-line exits.

Imported only when ``--witness`` is given.
"""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._options import fail
from verifier.gaps.store import GapStore
from verifier.gaps.witness import (
    WitnessCheck,
    WitnessEntry,
    WitnessError,
    append_witness,
    check_witness,
    read_witness,
    touch_witness,
    witness_entry,
)

__all__ = ["append_witnessed", "check_witnessed", "prepare_witness", "read_witnessed", "to_witness"]


def prepare_witness(path: Path) -> None:
    """Refuses (exit 2) a witness file that cannot be appended to, before the run."""
    try:
        touch_witness(path)
    except WitnessError as exc:
        fail(str(exc))


def to_witness(
    store: GapStore, run_ids: list[str], *, shard: str | None = None
) -> list[WitnessEntry]:
    """The entries to witness for runs (or a shard) that just ended, in order."""
    entries = [witness_entry(store, run_id, shard=shard) for run_id in run_ids]
    return [entry for entry in entries if entry is not None]


def append_witnessed(path: Path, entries: list[WitnessEntry]) -> None:
    """Appends the entries and says so on stderr; a failed write exits 2."""
    try:
        append_witness(path, entries)
    except WitnessError as exc:
        fail(str(exc))
    for entry in entries:
        click.echo(
            f"run {entry.run_id}: head {entry.head} (seal {entry.seal}) witnessed in {path}",
            err=True,
        )


def read_witnessed(path: Path) -> list[tuple[int, WitnessEntry]]:
    """The witness file's entries; a missing file or a bad line exits 2, located."""
    try:
        return read_witness(path)
    except WitnessError as exc:
        fail(str(exc))


def check_witnessed(
    store: GapStore, path: Path, entries: list[tuple[int, WitnessEntry]]
) -> WitnessCheck:
    """Checks the heads against the store and prints the tally on stderr."""
    check = check_witness(store, path, entries)
    click.echo(check.line(path), err=True)
    return check
