"""``verifier run --shard K/N --run-id RUN`` and ``verifier run --finish RUN``.

A shard checks the cases whose id hashes into its part and writes them into the
shared run; its last lines speak of its part, and the last shard to finish ends the
run. ``--finish`` ends a sharded run whose shards have all finished (or reports one
already ended) and writes its report, PR comment and step summary like a run does.
Imported only when ``run`` runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from verifier._atomic import AtomicFile
from verifier.cases import CaseLine
from verifier.ci.sharded_runs import ShardsMissing, finish_sharded_run, unfinished_shards
from verifier.cli._options import EXIT_FAILED, EXIT_OK, fail
from verifier.cli._run_parts import ci_sinks
from verifier.errors import VerifierError
from verifier.gaps.records import StoreError
from verifier.gaps.shards import Shard, sharded_store
from verifier.gaps.store import GapStore, open_store, resolve_run_id
from verifier.report import make_writer
from verifier.results import RunSummary

__all__ = ["begin_shard", "check_shard", "end_shard", "finish_command", "in_shard"]


def check_shard(
    shard_text: str | None,
    run_id: str | None,
    resume_id: str | None,
    *,
    sample: float | None,
    variants: bool,
    gate: bool,
) -> Shard | None:
    """The shard asked for, after checking the options that go with it; exits 2 on
    the first problem."""
    if run_id is not None and resume_id is not None:
        fail("--resume names the run already: give --resume RUN without --run-id")
    if shard_text is None:
        return None
    try:
        shard = Shard.parse(shard_text)
    except ValueError as exc:
        fail(f"--shard {exc}")
    if run_id is None and resume_id is None:
        fail("--shard writes into a run every shard names: give --run-id RUN (the same for all)")
    conflicts = (("--sample", sample is not None), ("--variant", variants), ("--gate", gate))
    for flag, given in conflicts:
        if given:
            fail(f"{flag} cannot be combined with --shard (gate the run after --finish)")
    return shard


def in_shard(lines: Iterator[CaseLine], shard: Shard) -> Iterator[CaseLine]:
    """The cases of ``lines`` that ``shard`` checks."""
    return (line for line in lines if shard.holds(line.case_id))


def begin_shard(store: GapStore, shard: Shard, run_id: str, *, resume: bool) -> None:
    """Makes ``store`` write ``run_id`` as ``shard``.

    Raises:
        StoreError: A SQLite store, or a shard begun before that is not resumed.
    """
    sharded = sharded_store(store)
    if not resume:
        begun = [r for r in sharded.shards(run_id) if r.shard == shard]
        if begun and begun[0].status == "finished":
            raise StoreError(f"shard {shard.label} of run {run_id} has already finished")
        if begun:
            raise StoreError(
                f"shard {shard.label} of run {run_id} has already begun ({begun[0].status}): "
                f"resume it with --resume {run_id} --shard {shard.label}"
            )
    sharded.write_as_shard(shard)


def end_shard(store: GapStore, shard: Shard, summary: RunSummary) -> NoReturn:
    """Says what the shard checked, ends the run if every shard has finished, and
    exits 0 when every case of the shard passed, else 1."""
    run_id = summary.run_id
    click.echo(
        f"shard {shard.label} of run {run_id}: {summary.passed_cases}/{summary.total_cases} "
        f"cases passed; gap rows in {store.location}",
        err=True,
    )
    sharded_store(store).write_as_shard(None)
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
    sys.exit(EXIT_OK if summary.failed_cases == 0 else EXIT_FAILED)


def finish_command(
    run_id: str,
    target: str,
    *,
    fmt: str,
    out: Path | None,
    pr_comment: Path | None,
    against: str | None,
) -> NoReturn:
    """``verifier run --finish RUN``: ends the sharded run and writes its outputs;
    exits 0 when every case passed, 1 when one did not or a shard is missing."""
    files: list[AtomicFile] = []
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
    passed = summary.total_cases > 0 and summary.failed_cases == 0
    sys.exit(EXIT_OK if passed else EXIT_FAILED)


def _discard(files: list[Any]) -> None:
    for written in files:
        written.discard()
