"""``verifier judges``: every judge triple a store holds verdicts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from verifier.cli._options import STORE_OPTION, existing_store, fail, format_option

if TYPE_CHECKING:
    from verifier.analyses.judges import StoredJudge

_HEADERS = (
    "JUDGE",
    "MODEL",
    "PROMPT",
    "SAMPLING",
    "CLAIMS",
    "PASS",
    "FAIL",
    "ERROR",
    "SCORED",
    "FIRST USED",
    "LAST USED",
    "CALIBRATION",
    "RESAMPLES",
    "RETIRES",
    "SUCCESSOR",  # shown once a store records a succession
)


@click.command("judges")
@STORE_OPTION
@click.option(
    "--contract", "contract_id", default=None, help="List the judges of this contract only."
)
@format_option("table", "json")
def judges_command(store: str | None, contract_id: str | None, fmt: str) -> None:
    """List every judge the store holds verdicts from, one line per judge and triple
    (served model, prompt sha, sampling sha): the claims it answered, its verdicts,
    the runs it was first and last used in, its calibration against human labels and
    test-retest agreement if measured, when its model retires where the provider
    publishes a date, and the model a recorded succession moved it to
    (`verifier judge switch`), with the succession's id."""
    import orjson

    from verifier.errors import VerifierError

    target = existing_store(store)
    try:
        location, found = _read(target, contract_id)
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        listed = [judge.as_dict() for judge in found]
        click.echo(orjson.dumps(listed, option=orjson.OPT_INDENT_2).decode())
        return
    if not found:
        of = f" of contract {contract_id}" if contract_id is not None else ""
        click.echo(f"no judge verdicts{of} stored in {location}")
        return
    click.echo(_table(found), nl=False)


def _read(target: str, contract_id: str | None) -> tuple[str, list[StoredJudge]]:
    """The store's location and its judges, with their calibrations and resamples."""
    from verifier.analyses.judges import store_judges
    from verifier.compare.calibration_store import CalibrationStore
    from verifier.gaps.resamples import ResampleStore
    from verifier.gaps.store import open_store

    with (
        open_store(target) as gap_store,
        CalibrationStore(target, read_only=True) as calibrations,
        ResampleStore(target, read_only=True) as resamples,
    ):
        found = store_judges(
            gap_store,
            contract_id=contract_id,
            calibrations=calibrations,
            resamples=resamples,
        )
        return gap_store.location, found


def _table(found: list[StoredJudge]) -> str:
    """The judges as aligned columns, stored text made safe to print."""
    from verifier._internal.terminal import printable_line
    from verifier.cli._table import aligned, to_second

    rows = [
        (
            printable_line(f"{judge.contract}/{judge.judge or '?'}"),
            printable_line(_model(judge)),
            judge.prompt_sha[:12],
            judge.sampling_sha[:12],
            printable_line(", ".join(judge.claims)),
            *(str(n) for n in (judge.verdicts.passed, judge.verdicts.failed)),
            str(judge.verdicts.errors),
            str(judge.verdicts.scored) if judge.verdicts.scored else "-",
            to_second(judge.first_used),
            to_second(judge.last_used),
            _calibration(judge),
            _agreement(judge),
            _retires(judge),
            _successor(judge),
        )
        for judge in found
    ]
    if any(judge.successor for judge in found):
        return aligned(_HEADERS, rows)
    # No succession recorded: the table stays as narrow as it can.
    return aligned(_HEADERS[:-1], [row[:-1] for row in rows])


def _model(judge: StoredJudge) -> str:
    """The served model, and the asked one when it differs."""
    asked = judge.asked_model
    return judge.model if asked in (None, judge.model) else f"{judge.model} (asked {asked})"


def _calibration(judge: StoredJudge) -> str:
    found = judge.calibration
    if found is None:
        return "-"
    kappa = "undefined" if found.kappa is None else f"{found.kappa:.2f}"
    return f"kappa {kappa} ({found.labels} labels)"


def _agreement(judge: StoredJudge) -> str:
    found = judge.resample_agreement
    return "-" if found is None else f"{found.agreed}/{found.asked} agreed"


def _retires(judge: StoredJudge) -> str:
    if judge.retires_on is None or judge.days_left is None:
        return "-"
    days = judge.days_left
    left = f"{days} days left" if days >= 0 else f"retired {-days} days ago"
    return f"{judge.retires_on.isoformat()} ({left})"


def _successor(judge: StoredJudge) -> str:
    """The successor's model and the succession's id, short: the full triple is in JSON."""
    from verifier._internal.terminal import printable_line

    found = judge.successor
    if found is None:
        return "-"
    return printable_line(f"{found.model} ({found.succession_id[:8]})")
