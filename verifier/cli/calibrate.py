"""``verifier calibrate``: how far a run's judge verdicts agree with human labels."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from verifier._internal.terminal import printable
from verifier.cli._options import (
    EXIT_INVALID,
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    format_option,
    resolve_run,
)
from verifier.compare.agreement import DEFAULT_KAPPA_MARGIN

if TYPE_CHECKING:
    from verifier.compare.calibration_report import CalibrationReport
    from verifier.compare.labels import LabelSet
    from verifier.gaps.store import GapStore


@click.command("calibrate")
@click.option(
    "--labels",
    "labels_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Human labels (JSONL): case_id, claim_id, label (pass, fail or a score), rater; "
    "or, for a whole case, case_id with thumbs (up or down) or score.",
)
@click.option(
    "--run", "run_id", type=RUN_ID, default=None, help="The run to calibrate.  [default: last]"
)
@click.option(
    "--trial",
    "trial_id",
    default=None,
    help="Calibrate the candidate of this judge trial (`last`: the newest): its re-asked "
    "verdicts, stored under the candidate's triple.",
)
@click.option(
    "--kappa-margin",
    type=click.FloatRange(0.0, 1.0, min_open=True),
    default=DEFAULT_KAPPA_MARGIN,
    show_default=True,
    help="Half-width of kappa's 95% interval to say how many labels are needed for.",
)
@STORE_OPTION
@format_option("console", "json", "markdown")
def calibrate(
    labels_path: Path,
    run_id: str | None,
    trial_id: str | None,
    kappa_margin: float,
    store: str | None,
    fmt: str,
) -> None:
    """Measure how far a run's judge verdicts agree with human labels, and store the result
    under each judge's stability triple (`verifier check` warns about judges without one).
    With --trial, the verdicts are a judge trial's candidate's, stored under its triple.
    Labels of whole cases (thumbs or a score) are set against the run's case scores."""
    from verifier.compare.calibration_markdown import render_markdown
    from verifier.compare.labels import LabelsError, read_labels
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    if run_id and trial_id:
        fail("--run and --trial name two sets of verdicts: give one")
    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    coverage: str | None = None
    try:
        labels = read_labels(labels_path)
        with open_store(target) as gap_store:
            report, coverage = _calibrated(
                gap_store, target, labels, run_id, trial_id, kappa_margin
            )
            location = gap_store.location
        stored = _stored(target, report)
    except LabelsError as exc:
        for problem in exc.problems:
            click.echo(f"error: {printable(str(problem))}", err=True)
        sys.exit(EXIT_INVALID)
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        import orjson

        click.echo(orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode())
    elif fmt == "markdown":
        click.echo(render_markdown(report), nl=False)
    else:
        click.echo(report.render_text())
    if coverage:
        click.echo(coverage, err=True)
    _say_stored(report, labels, stored, location)


def _stored(target: str, report: CalibrationReport) -> tuple[int, int]:
    """Stores the report's calibrations (sealed): how many of claims, how many of cases."""
    from verifier.compare.calibration_store import CalibrationStore
    from verifier.compare.case_calibration_store import CaseCalibrationStore

    stored = cases = 0
    if report.claims:
        with CalibrationStore(target) as calibrations:
            stored = calibrations.save(report)
    if report.cases is not None and any(kind.n for kind in report.cases.kinds):
        with CaseCalibrationStore(target) as case_calibrations:
            cases = case_calibrations.save(report.cases, report.labels_sha256)
    return stored, cases


def _say_stored(
    report: CalibrationReport, labels: LabelSet, stored: tuple[int, int], location: str
) -> None:
    """Says what was stored, or fails (exit 2) when no label met anything to compare."""
    claims, cases = stored
    what = f"trial {report.trial_id}" if report.trial_id else f"run {report.run_id}"
    if report.trial_id and labels.cases:
        click.echo(
            f"note: {len(labels.cases)} case label(s) left out: a trial re-asks judge "
            "verdicts; calibrate its run for the case scores",
            err=True,
        )
    if not claims and not cases:
        if labels.labels:
            fail(f"no label matched a judge verdict of {what}")
        fail(f"no case label met a scored case of {what}")
    if claims or labels.labels:
        click.echo(
            f"stored {claims} calibration{'s' if claims != 1 else ''} in {location}", err=True
        )
    if cases:
        plural = "s" if cases != 1 else ""
        click.echo(f"stored {cases} case calibration{plural} in {location}", err=True)


def _calibrated(
    gap_store: GapStore,
    target: str,
    labels: LabelSet,
    run_id: str | None,
    trial_id: str | None,
    kappa_margin: float,
) -> tuple[CalibrationReport, str | None]:
    """The calibration of a run, or of a trial's candidate with how far the trial
    covered the labels."""
    from verifier.compare.calibration import calibrate_run
    from verifier.compare.calibration_trial import calibrate_trial
    from verifier.compare.case_labels import calibrate_cases
    from verifier.gaps.trials import TrialStore

    if trial_id is None:
        report = calibrate_run(gap_store, labels, run_id, kappa_margin=kappa_margin)
        cases = calibrate_cases(gap_store, labels, report.run_id)
        return replace(report, cases=cases), None
    with TrialStore(target, read_only=True) as trials:
        trial = trials.sealed_trial(trial_id)
    calibrated = calibrate_trial(gap_store, trial, labels, kappa_margin=kappa_margin)
    return calibrated.report, calibrated.coverage()
