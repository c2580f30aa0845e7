"""``verifier purge``: delete stored case contents no longer wanted, keeping every row.

The store and the purge are imported inside the command, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

import click

from verifier.cli._options import RUN_ID, STORE_OPTION, existing_store, fail, resolve_run


@click.command("purge")
@click.option(
    "--content",
    "content",
    is_flag=True,
    help="Delete case contents (the only thing a purge deletes; rows are never deleted).",
)
@click.option("--run", "run_id", type=RUN_ID, default=None, help="Purge what this run recorded.")
@click.option(
    "--before",
    default=None,
    metavar="DATE",
    help="Purge what runs started before DATE recorded (2026-01-31 or 2026-01-31T12:00:00Z, UTC).",
)
@STORE_OPTION
def purge_command(content: bool, run_id: str | None, before: str | None, store: str | None) -> None:
    """Delete the stored case contents of the chosen runs that no other run refers to.

    Rows keep the SHA-256 of their case's content, so every row, its hash and the
    chain stay as they were and the audit still passes; exports no longer carry the
    purged contents. Each deleted content is printed on stdout.
    """
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.transfer.purge import purge_contents, select_runs

    if not content:
        fail("say what to purge: --content (stored case contents)")
    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    try:
        with open_store(target) as gap_store:
            runs = select_runs(gap_store, run_id=run_id, before=before)
            result = purge_contents(gap_store, runs)
            location = gap_store.location
    except VerifierError as exc:
        fail(str(exc))
    for sha, size in result.deleted:
        click.echo(f"deleted content {sha} ({size} bytes)")
    total = sum(size for _, size in result.deleted)
    kept = f"; {result.kept} kept, still used by other runs" if result.kept else ""
    click.echo(
        f"purged {len(result.deleted)} content(s), {total} bytes, of {len(result.runs)} run(s) "
        f"from {location}{kept}; every row and the chain are unchanged",
        err=True,
    )
