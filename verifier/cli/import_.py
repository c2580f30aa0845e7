"""``verifier import``: a verifier JSONL export (the default) or a promptfoo result."""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._group import DefaultCommandGroup
from verifier.cli._options import DEFAULT_STORE, EXIT_FAILED, fail, store_target
from verifier.cli.promptfoo import promptfoo_import_command


@click.group("import", cls=DefaultCommandGroup, default_command="jsonl")
def import_group() -> None:
    """Import results: a verifier JSONL export (the default: `verifier import FILE`), or
    one promptfoo assertion result (`verifier import promptfoo FILE`)."""


@import_group.command("jsonl")
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--store",
    default=None,
    help=f"Gap-row store to import into.  [default: {DEFAULT_STORE}]",
)
@click.option(
    "--expect-head",
    default=None,
    metavar="HASH",
    help="The head the source store published: refuse an export whose seals do not hold it.",
)
def import_command(file: Path, store: str | None, expect_head: str | None) -> None:
    """Verify a JSONL export whole (hashes, links, counts), then append it to a store.

    Rows are sealed again into the store's own chain; each keeps its original seq and
    hashes in evidence.resealed_from. A broken export is refused, nothing imported.
    """
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.transfer.importer import (
        ExportRefused,
        NotAnExport,
        RunAlreadyInStore,
        check_header,
        import_jsonl,
    )

    target = store_target(store)
    try:
        check_header(file)  # a wrong file makes no store
        with open_store(target) as gap_store:
            summary = import_jsonl(file, gap_store, expect_head=expect_head)
            location = gap_store.location
    # Wrong input (no export, or one imported already): exit 2, as for any bad argument.
    except (NotAnExport, RunAlreadyInStore) as exc:
        fail(f"{file}:{exc.line}: refused, nothing imported: {exc.reason}")
    except ExportRefused as exc:  # an export that does not verify: exit 1
        fail(f"{file}:{exc.line}: refused, nothing imported: {exc.reason}", EXIT_FAILED)
    except VerifierError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{file}: cannot read: {exc.strerror or exc}")
    click.echo(
        f"imported {summary.rows} rows of {len(summary.runs)} run(s) from {file} into "
        f"{location}, sealed into its chain (original hashes in evidence.resealed_from)"
    )


import_group.add_command(promptfoo_import_command)
