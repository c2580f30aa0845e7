"""``verifier audit``: re-check a store, or re-evaluate its verdicts (``--recheck``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from verifier.cli._options import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    format_option,
    resolve_run,
    window_option,
)

if TYPE_CHECKING:
    from verifier.analyses.history import HistoryAudit
    from verifier.analyses.window import Window


@click.command("audit")
@STORE_OPTION
@click.option(
    "--run",
    "run_id",
    type=RUN_ID,
    default=None,
    help="Check the rows, drift and alerts of this run only (the chain is always checked "
    "whole, and trends cover every run).",
)
@format_option("console", "json", "markdown")
@window_option("Earlier runs a run's pass rate is compared with for degradation alerts.")
@click.option(
    "--fail-on-alert", is_flag=True, help="Exit 1 on a degradation alert too, not only on damage."
)
@click.option(
    "--notify",
    "notify",
    multiple=True,
    metavar="URL",
    envvar="VERIFIER_NOTIFY_URL",
    help="POST the degradation alerts, when there are any, to this webhook (repeatable; "
    "default: VERIFIER_NOTIFY_URL, URLs separated by spaces): a Slack message to a Slack "
    "incoming webhook, else the alerts' JSON. Each alert is posted to a URL once: the "
    "store remembers what it delivered, and a failed delivery is tried by the next audit. "
    "A failed delivery is one line on stderr and exit 2 (exit 1 when the audit fails anyway).",
)
@click.option(
    "--recheck",
    is_flag=True,
    help="Instead: re-evaluate every stored verdict from the stored content and contract "
    "(judges from the cache or recordings, never called); exit 1 when one differs.",
)
@click.option(
    "--resample",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Instead: ask the judges N of the run's stored verdicts again (needs --run and the "
    "judges' API keys) and report test-retest agreement per judge triple; kept in the store.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the --resample draw (the same seed draws the same verdicts).",
)
@click.option(
    "--expect-head",
    default=None,
    metavar="HASH",
    help="A head printed by an earlier audit or run: exit 1 unless the store's seal chain "
    "still holds it where it was.",
)
@click.option(
    "--witness",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    metavar="FILE",
    help="A file of heads `verifier run --witness FILE` appended: exit 1 unless the store's "
    "seal chain still holds every one of them where it was.",
)
def audit(
    store: str | None,
    run_id: str | None,
    fmt: str,
    window: Window,
    fail_on_alert: bool,
    notify: tuple[str, ...],
    recheck: bool,
    resample: int | None,
    seed: int,
    expect_head: str | None,
    witness: Path | None,
) -> None:
    """Re-check every stored gap row (schema, judge triples, hash chain), the sealed run
    records, contracts and contents, print the store's head hash, and report judge
    drift, pass-rate trends and degradation alerts."""
    import re

    from verifier.analyses._history_render import render_history
    from verifier.analyses.history import audit_history
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store

    if expect_head is not None and not re.fullmatch(r"[0-9a-f]{64}", expect_head):
        fail(f"--expect-head {expect_head[:80]!r} is not a head: 64 lowercase hex digits")
    _check_notify(notify, resample)
    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    witnessed = None
    if witness is not None:
        from verifier.cli._witness import read_witnessed

        witnessed = (witness, read_witnessed(witness))
    if resample is not None:
        if run_id is None:
            fail("--resample needs --run RUN: the run whose verdicts are asked again")
        _resample(target, run_id, resample, seed, fmt)
    try:
        # One snapshot: the witnessed heads are looked for in the chain the audit verified.
        with open_store(target) as gap_store, gap_store.snapshot():
            if run_id is not None and gap_store.run(run_id) is None:
                fail(f"no run {run_id} in {gap_store.location}")
            report = audit_history(
                gap_store,
                run_id=run_id,
                window=window,
                expect_head=expect_head,
            )
            if witnessed is not None:
                from verifier.cli._witness import check_witnessed

                for problem in check_witnessed(gap_store, *witnessed).problems:
                    report.integrity.add("head", None, None, problem)
    except VerifierError as exc:
        fail(str(exc))
    failed = report.failed(fail_on_alert=fail_on_alert)
    undelivered = _notify(report, notify, target)
    if recheck:
        # The recheck adds to the audit: what the audit catches (a cut tail, a flipped
        # run status, a rewritten summary, a witnessed head gone) fails the recheck too.
        _recheck(target, run_id, fmt, report, failed, undelivered)
    click.echo(render_history(report, fmt), nl=False)
    sys.exit(EXIT_FAILED if failed else EXIT_INVALID if undelivered else EXIT_OK)


def _check_notify(urls: tuple[str, ...], resample: int | None) -> None:
    """Refuses a --notify URL that is not http(s), named masked, and --notify with
    --resample (which reports no alerts)."""
    from verifier.analyses.notify import check_notify_url

    if urls and resample is not None:
        fail("--notify sends an audit's alerts: --resample finds none")
    for url in urls:
        try:
            check_notify_url(url)
        except ValueError as exc:
            fail(str(exc))


def _notify(report: HistoryAudit, urls: tuple[str, ...], target: str) -> bool:
    """Sends each URL the alerts not delivered to it before (the store remembers), says
    on stderr what became of them, and returns whether something was not delivered."""
    from verifier.analyses.notify import notify_alerts
    from verifier.errors import VerifierError
    from verifier.gaps.alert_deliveries import AlertDeliveryStore

    if not urls or not report.alerts:
        return False
    undelivered = False
    try:
        with AlertDeliveryStore(target) as sent:
            for delivery in notify_alerts(report, urls, sent=sent):
                click.echo(delivery.line(), err=True)
                undelivered = undelivered or not delivery.ok
    except VerifierError as exc:
        click.echo(f"error: {exc}", err=True)
        return True
    return undelivered


def _recheck(
    target: str,
    run_id: str | None,
    fmt: str,
    audited: HistoryAudit,
    failed: bool,
    undelivered: bool = False,
) -> NoReturn:
    """Re-evaluates every stored verdict, prints it and then the audit, and exits 0
    when the audit passed and no verdict differs, else 1."""
    from verifier.analyses._history_render import render_history
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.recheck import recheck_store, render_recheck

    try:
        with open_store(target) as gap_store:
            report = recheck_store(gap_store, target=target, run_id=run_id)
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        import orjson

        document = {**report.as_dict(), "audit": audited.as_dict()}
        document["ok"] = report.ok and not failed
        click.echo(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(render_recheck(report, fmt), nl=False)
        click.echo("")
        click.echo(render_history(audited, fmt), nl=False)
    if not report.ok or failed:
        sys.exit(EXIT_FAILED)
    sys.exit(EXIT_INVALID if undelivered else EXIT_OK)


def _resample(target: str, run_id: str, n: int, seed: int, fmt: str) -> NoReturn:
    """Asks the judges ``n`` stored verdicts of the run again; exits 0 (a measurement)."""
    import orjson

    from verifier.errors import VerifierError
    from verifier.gaps.resamples import ResampleStore
    from verifier.gaps.store import open_store
    from verifier.recheck.resample import resample_run

    try:
        with open_store(target) as gap_store:
            if gap_store.run(run_id) is None:
                fail(f"no run {run_id} in {gap_store.location}")
            report = resample_run(gap_store, run_id=run_id, n=n, seed=seed)
        with ResampleStore(target) as resamples:
            resamples.save(report.rows)
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        click.echo(orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo("\n".join(report.lines()))
    sys.exit(EXIT_OK)
