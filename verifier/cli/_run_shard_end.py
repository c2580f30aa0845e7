"""The ends of a sharded run: a shard's last lines, and ``verifier run --finish RUN``.

Apart from ``_run_shards`` so that a run which is not sharded never imports
``verifier.ci.sharded_runs`` (its start counts toward the first judge call, ADR 0045).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from verifier._internal.atomic import AtomicFile
from verifier.ci.sharded_runs import ShardsMissing, finish_sharded_run, unfinished_shards
from verifier.cli._options import EXIT_FAILED, EXIT_OK, fail
from verifier.cli._run_parts import ci_sinks
from verifier.errors import VerifierError
from verifier.gaps.records import StoreError
from verifier.gaps.shards import Shard, sharded_store
from verifier.gaps.store import GapStore, open_store, resolve_run_id
from verifier.report import make_writer
from verifier.results import RunSummary

__all__ = ["end_finished_shard", "end_shard", "finish_command"]


def end_shard(
    store: GapStore, shard: Shard, summary: RunSummary, *, witness: Path | None = None
) -> NoReturn:
    """Says what the shard checked, ends the run if every shard has finished, appends
    the head to ``witness`` (the run's end, else the store's head after the shard),
    and exits 0 when every case of the shard passed, else 1."""
    run_id = summary.run_id
    click.echo(
        f"shard {shard.label} of run {run_id}: {summary.passed_cases}/{summary.total_cases} "
        f"cases passed; gap rows in {store.location}",
        err=True,
    )
    sharded_store(store).write_as_shard(None)
    _end_run_if_last(store, run_id)
    if witness is not None:
        from verifier.cli._witness import append_witnessed, to_witness

        append_witnessed(witness, to_witness(store, [run_id], shard=shard.label))
    sys.exit(EXIT_OK if summary.failed_cases == 0 else EXIT_FAILED)


def end_finished_shard(
    store: GapStore, shard: Shard, run_id: str, part: Mapping[str, Any]
) -> NoReturn:
    """A resumed shard that had already finished (killed after recording its end, before
    the run's): ends the run if every shard has, as its first end would have, and exits
    as that end did (0 when every case of its part passed, else 1).

    Args:
        part: The summary of the shard's part, as its end recorded it.
    """
    passed, total = part.get("passed_cases"), part.get("total_cases")
    click.echo(
        f"shard {shard.label} of run {run_id} had already finished ({passed}/{total} cases "
        "passed): nothing left to check",
        err=True,
    )
    _end_run_if_last(store, run_id)
    sys.exit(EXIT_OK if part.get("failed_cases") == 0 else EXIT_FAILED)


def _end_run_if_last(store: GapStore, run_id: str) -> None:
    """Ends the sharded run when no shard is left, else says which ones it waits for."""
    try:
        _, _, left = unfinished_shards(store, run_id)
        if left:
            click.echo(f"run {run_id} waits: {'; '.join(left)}", err=True)
        else:
            whole = finish_sharded_run(store, run_id)
            click.echo(
                f"run {run_id} finished (every shard has): {whole.passed_cases}/"
                f"{whole.total_cases} cases passed; store head {whole.head}",
                err=True,
            )
    except StoreError:
        # Another shard ending at the same moment holds the run: it finishes it.
        click.echo(f"run {run_id}: another shard is finishing it", err=True)


def finish_command(
    run_id: str,
    target: str,
    *,
    fmt: str,
    out: Path | None,
    pr_comment: Path | None,
    against: str | None,
    witness: Path | None = None,
) -> NoReturn:
    """``verifier run --finish RUN``: ends the sharded run, writes its outputs and
    appends its head to ``witness``; exits 0 when every case passed, 1 when one did not
    or a shard is missing."""
    files: list[AtomicFile] = []
    if witness is not None:
        from verifier.cli._witness import prepare_witness, to_witness

        prepare_witness(witness)
    try:
        out_file = AtomicFile(out, "the report") if out else None
        comment_file = AtomicFile(pr_comment, "the PR comment") if pr_comment else None
        files = [f for f in (out_file, comment_file) if f is not None]
        stream: IO[str] = out_file.stream if out_file else sys.stdout
        with open_store(target) as gap_store:
            run_id = resolve_run_id(gap_store, run_id)
            sinks: list[Any] = [
                make_writer(fmt, stream),  # type: ignore[arg-type]
                *ci_sinks(
                    None,
                    gap_store,
                    cases_path=Path(),
                    annotations="none",
                    step_summary=os.environ.get("GITHUB_STEP_SUMMARY") or None,
                    comment_stream=comment_file.stream if comment_file else None,
                    against=against,
                ),
            ]
            summary = finish_sharded_run(gap_store, run_id, sinks)
            location = gap_store.location
            if witness is not None:
                witnessed = to_witness(gap_store, [run_id])
        for written in files:
            written.commit()
    except ShardsMissing as exc:
        _discard(files)
        fail(str(exc), EXIT_FAILED)
    except VerifierError as exc:
        _discard(files)
        fail(str(exc))
    for sink in sinks:
        if getattr(sink, "failure", None) is not None:
            fail(str(sink.failure))
    click.echo(
        f"run {run_id}: {summary.passed_cases}/{summary.total_cases} cases passed; "
        f"gap rows in {location}; store head {summary.head}",
        err=True,
    )
    if witness is not None:
        from verifier.cli._witness import append_witnessed

        append_witnessed(witness, witnessed)
    passed = summary.total_cases > 0 and summary.failed_cases == 0
    sys.exit(EXIT_OK if passed else EXIT_FAILED)


def _discard(files: list[Any]) -> None:
    for written in files:
        written.discard()
