"""``verifier runs``: the runs a store holds, newest first."""

from __future__ import annotations

from typing import Any

import click

from verifier.cli._options import STORE_OPTION, existing_store, fail, format_option

_HEADERS = ("RUN", "CONTRACT", "STARTED", "STATUS", "CASES", "PASSED", "JUDGE CALLS")


@click.command("runs")
@STORE_OPTION
@click.option(
    "--contract", "contract_id", default=None, help="List the runs of this contract only."
)
@click.option(
    "--last",
    "limit",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="List the N newest runs only.",
)
@format_option("text", "json")
def runs_command(store: str | None, contract_id: str | None, limit: int | None, fmt: str) -> None:
    """List the stored runs, newest first: id, contract and version, when it started,
    status (finished, interrupted, in flight), cases, passed and judge calls. The first
    is `last` and the next `last~1`, `last~2`... wherever a command takes a run."""
    import orjson

    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    target = existing_store(store)
    try:
        with open_store(target) as gap_store:
            location = gap_store.location
            listed = [
                run_entry(record, written=gap_store.run_written(record.run_id))
                for record in gap_store.recent_runs(contract_id=contract_id, limit=limit)
            ]
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        click.echo(orjson.dumps(listed, option=orjson.OPT_INDENT_2).decode())
        return
    if not listed:
        of = f" of contract {contract_id}" if contract_id is not None else ""
        click.echo(f"no runs{of} stored in {location}")
        return
    click.echo(_table(listed), nl=False)


def run_entry(record: Any, *, written: bool) -> dict[str, Any]:
    """One run as ``verifier runs --format json`` lists it.

    Args:
        record: The run (``verifier.gaps.store.RunRecord``).
        written: Whether a process is writing it now: a run recorded as running that
            nobody writes was stopped without recording its end, so it is interrupted.
    """
    summary = record.summary
    usage = summary.get("usage")
    status = record.status
    if status == "running":
        status = "in flight" if written else "interrupted"
    return {
        "run_id": record.run_id,
        "contract": {
            "id": record.contract_id,
            "version": record.contract_version,
            "sha256": record.contract_sha256,
        },
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "status": status,
        "cases": _count(summary.get("total_cases")),
        "passed": _count(summary.get("passed_cases")),
        "judge_calls": _count(usage.get("calls")) if isinstance(usage, dict) else None,
    }


def _count(value: Any) -> int | None:
    """A count the summary recorded, or ``None`` (a run stopped before its end was)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _table(listed: list[dict[str, Any]]) -> str:
    """The runs as aligned columns, case text made safe to print."""
    from verifier._internal.terminal import printable_line
    from verifier.cli._table import aligned, to_second

    rows = [
        (
            printable_line(run["run_id"]),
            f"{printable_line(run['contract']['id'])} v{run['contract']['version']}",
            to_second(run["started_at"]),
            run["status"],
            *("-" if run[key] is None else str(run[key]) for key in ("cases", "passed")),
            "-" if run["judge_calls"] is None else str(run["judge_calls"]),
        )
        for run in listed
    ]
    return aligned(_HEADERS, rows)
