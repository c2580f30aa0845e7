"""``verifier report``: a stored run, or the store's trends, as one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from verifier.cli._options import (
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    resolve_run,
    window_option,
)

if TYPE_CHECKING:
    from verifier.analyses.window import Window


@click.command("report")
@click.argument("run_id", metavar="[RUN]", required=False, type=RUN_ID)
@STORE_OPTION
@click.option(
    "--html",
    "html_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The self-contained HTML file to write.",
)
@click.option(
    "--trend",
    is_flag=True,
    help="Write the pass rate of every claim over all runs and days, with degradation "
    "alerts and judge drift (RUN, if given, narrows the alerts and drift to that run).",
)
@window_option("With --trend: earlier runs a run's pass rate is compared with for alerts.")
def report_command(
    run_id: str | None, store: str | None, html_path: Path, trend: bool, window: Window
) -> None:
    """Write a stored run (default: the last) as one self-contained HTML page: summary,
    pass rate per claim, judge triples, every result that did not pass. With --trend,
    the store's pass rates over time and its alerts instead."""
    from verifier.errors import VerifierError

    context = click.get_current_context()
    if not trend and context.get_parameter_source("window") is not ParameterSource.DEFAULT:
        fail("--window applies to --trend only")
    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    try:
        if trend:
            message = _write_trend(target, html_path, run_id, window)
        else:
            message = _write_run_report(target, html_path, run_id)
    except VerifierError as exc:
        fail(str(exc))
    click.echo(message, err=True)


def _write_run_report(target: str, path: Path, run_id: str | None) -> str:
    """Writes one run's page and says what it holds."""
    from verifier.gaps.resamples import ResampleStore
    from verifier.gaps.store import open_store
    from verifier.report.html import write_run_html

    with open_store(target) as gap_store:
        record = gap_store.run(run_id) if run_id else gap_store.last_run()
        if record is None:
            where = gap_store.location
            fail(f"run {run_id} is not in {where}" if run_id else f"{where}: no runs stored")
        with ResampleStore(target, read_only=True) as stored:
            resamples = stored.all()
        view = write_run_html(gap_store, record, path, resamples=resamples)
    return (
        f"wrote the report of run {record.run_id} to {path}: {view.rows} results, "
        f"{view.not_passed} not passed"
        + (f" ({view.left_out} not listed)" if view.left_out else "")
    )


def _write_trend(target: str, path: Path, run_id: str | None, window: Window) -> str:
    """Writes the trends page and says what it holds."""
    from verifier.gaps.store import open_store
    from verifier.report.html_trend import write_trend_html

    with open_store(target) as gap_store:
        if not gap_store.runs():
            fail(f"{gap_store.location}: no runs stored")
        if run_id and gap_store.run(run_id) is None:
            fail(f"run {run_id} is not in {gap_store.location}")
        history = write_trend_html(gap_store, path, run_id=run_id, window=window)
    return (
        f"wrote the trends of {len(history.trends.claims)} claim(s) over "
        f"{len(history.trends.runs)} run(s) to {path}: {len(history.alerts)} alert(s)"
    )
