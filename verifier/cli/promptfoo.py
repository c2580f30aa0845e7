"""The promptfoo parts of the command line: ``verifier import promptfoo`` and the body of
``verifier export --format promptfoo``.

Heavy modules are imported inside the commands, so ``verifier --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from verifier.cli._options import STORE_OPTION, fail, store_target


@click.command("promptfoo")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@STORE_OPTION
@click.option(
    "--contract-id",
    default="promptfoo-import",
    show_default=True,
    help="Contract id of the import's run (imports under one id share a contract hash).",
)
@click.option(
    "--case-id",
    default="promptfoo-assertion",
    show_default=True,
    help="Case id of the row (promptfoo's result names no case, so none is invented).",
)
def promptfoo_import_command(file: Path, store: str | None, contract_id: str, case_id: str) -> None:
    """Import ONE promptfoo assertion result from FILE as an `imported` gap row.

    FILE holds one surfaced deterministic `equals` GradingResult, as promptfoo writes it
    in a test's gradingResult.componentResults (or the reduced
    promptfoo.assertion-grading-result.export.v1 artifact). Whole eval outputs, JSONL
    lines, arrays, aggregates, raw prompts/outputs/vars, provider data and model-graded
    assertions are refused (exit 2) and nothing is written.
    """
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.integrations.promptfoo_artifact import MalformedPromptfooResult
    from verifier.integrations.promptfoo_import import (
        check_ids,
        read_promptfoo_result,
        record_promptfoo_result,
    )

    target = store_target(store)
    if not file.is_file():
        fail(f"{file}: file not found")
    try:
        check_ids(contract_id, case_id)
        # Everything is checked before a store is opened (or created).
        artifact, source_sha = read_promptfoo_result(file)
        with open_store(target) as gap_store:
            done = record_promptfoo_result(
                artifact, source_sha, gap_store, contract_id=contract_id, case_id=case_id
            )
            location = gap_store.location
    except MalformedPromptfooResult as exc:
        fail(f"{file}: refused, nothing imported: {exc}")
    except (VerifierError, ValueError) as exc:
        fail(str(exc))
    outcome = done.artifact.result
    click.echo(
        f"imported promptfoo {done.artifact.assertion_type} result ({done.status}, score "
        f"{outcome.score}) as row {done.row_id} into {location}"
    )


def export_promptfoo(target: str, out: Path | None, run_id: str | None) -> None:
    """``verifier export --format promptfoo``: one GradingResult JSON line per gap row."""
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.integrations.promptfoo_export import write_promptfoo_export

    try:
        with open_store(target) as gap_store:
            count = write_promptfoo_export(gap_store, out, run_id=run_id)
    except VerifierError as exc:
        fail(str(exc))
    where = f" to {out}" if out else ""
    click.echo(f"exported {count} promptfoo GradingResult(s){where}", err=True)
