"""``verifier export``: stream gap rows out of a store."""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._options import RUN_ID, STORE_OPTION, existing_store, fail, resolve_run


@click.command("export")
@STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "parquet", "promptfoo"]),
    default="jsonl",
    show_default=True,
    help="JSONL can be imported into another store; Parquet is for analysis; promptfoo "
    "writes one GradingResult JSON line per row.",
)
@click.option(
    "--run", "run_id", type=RUN_ID, default=None, help="Export the rows of this run only."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="File to write.  [default: standard output, JSONL only]",
)
def export_command(store: str | None, fmt: str, run_id: str | None, out: Path | None) -> None:
    """Stream gap rows out of a store, each with its row_hash."""
    from verifier._internal.write_errors import OutputError
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.transfer.export import write_export

    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    if fmt == "promptfoo":
        from verifier.cli.promptfoo import export_promptfoo

        return export_promptfoo(target, out, run_id)
    try:
        with open_store(target) as gap_store:
            summary = write_export(gap_store, fmt, out, run_id=run_id)
    except ImportError:
        fail("a Parquet export needs pyarrow: pip install 'verifier-llm[parquet]'")
    except (VerifierError, ValueError) as exc:
        fail(str(exc))
    except OSError as exc:
        if out is None:
            raise  # standard output: the command line's own handler names it
        fail(str(OutputError(out, exc, "the export")))  # Parquet, written by pyarrow
    for warning in summary.warnings:
        click.echo(f"warning: {warning}; an import of this export will refuse it", err=True)
    where = f" to {out}" if out else ""
    click.echo(f"exported {summary.rows} rows of {summary.runs} run(s){where}", err=True)
