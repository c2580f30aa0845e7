"""The ends of a sharded run on the command line: a shard's last lines, and
``verifier run --finish RUN`` (the library's :func:`verifier.finish_sharded_run`).

Apart from the run's own lines so that a run which is not sharded never imports
``verifier.ci.sharded_runs`` (its start counts toward the first judge call, ADR 0045).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from verifier._internal.atomic import AtomicFile
from verifier.cli._options import EXIT_FAILED, EXIT_OK, fail
from verifier.cli._run_parts import ci_sinks
from verifier.errors import VerifierError
from verifier.gaps.store import GapStore, open_store
from verifier.report import make_writer
from verifier.run.shards import ShardEnd, finish_sharded_run

__all__ = ["end_shard", "finish_command", "finish_option"]


def end_shard(end: ShardEnd, location: str, target: str, *, witness: Path | None) -> NoReturn:
    """Says what the shard checked and how its run stands, appends the head to
    ``witness`` (the run's end, else the store's head after the shard), and exits 0
    when every case of the shard passed, else 1."""
    for line in end.lines(location):
        click.echo(line, err=True)
    if witness is not None and not end.already_finished:
        from verifier.cli._witness import append_witnessed, to_witness

        with open_store(target) as gap_store:
            witnessed = to_witness(gap_store, [end.run_id], shard=end.label)
        append_witnessed(witness, witnessed)
    sys.exit(EXIT_OK if end.failed == 0 else EXIT_FAILED)


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
    from verifier.ci.sharded_runs import ShardsMissing

    files: list[AtomicFile] = []
    sinks: list[Any] = []
    if witness is not None:
        from verifier.cli._witness import prepare_witness, to_witness

        prepare_witness(witness)
    try:
        out_file = AtomicFile(out, "the report") if out else None
        comment_file = AtomicFile(pr_comment, "the PR comment") if pr_comment else None
        files = [f for f in (out_file, comment_file) if f is not None]
        stream: IO[str] = out_file.stream if out_file else sys.stdout

        def sinks_over(gap_store: GapStore) -> list[Any]:
            sinks[:] = [
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
            return sinks

        summary = finish_sharded_run(run_id, store=target, sinks=sinks_over)
        run_id = summary.run_id
        with open_store(target) as gap_store:
            location = gap_store.location
            witnessed = to_witness(gap_store, [run_id]) if witness is not None else []
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


def finish_option(
    finish_id: str,
    contract: Path | None,
    store: str | None,
    fmt: str,
    out: Path | None,
    pr_comment: Path | None,
    against: str | None,
    witness: Path | None,
) -> NoReturn:
    """``--finish RUN``: ends a sharded run (no CONTRACT) and exits."""
    from verifier.cli._run_shard_end import finish_command
    from verifier.errors import VerifierError
    from verifier.gaps.target import new_store_target

    if contract is not None:
        fail("--finish reads the run's contract from the store; give no CONTRACT")
    try:
        target = new_store_target(store)
    except VerifierError as exc:
        fail(str(exc))
    finish_command(
        finish_id, target, fmt=fmt, out=out, pr_comment=pr_comment, against=against, witness=witness
    )
