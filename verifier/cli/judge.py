"""``verifier judge trial``: does a successor model judge like a pinned judge's model?
``verifier judge switch``: record that the judge moves to it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from verifier.cli._options import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    RUN_ID,
    STORE_OPTION,
    existing_store,
    fail,
    format_option,
    resolve_run,
)
from verifier.cli._types import FiniteFloatRange

if TYPE_CHECKING:
    from verifier.gaps.trials import TrialRow
    from verifier.trial import TrialReport


@click.group("judge")
def judge_group() -> None:
    """Pinned judges: trial a successor model before a judge's model retires."""


@judge_group.command("trial")
@click.argument("judge")
@click.option(
    "--to", "model", default=None, help="The candidate model id (required unless --resume)."
)
@click.option(
    "--prompt",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Ask with this judge template instead of the judge's own.",
)
@click.option("--contract", "contract_id", default=None, help="Only verdicts of this contract id.")
@click.option("--run", "run_id", type=RUN_ID, default=None, help="Only verdicts of this run.")
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Verdicts to re-ask, stratified by claim and verdict (all when fewer are stored).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the draw.")
@click.option(
    "--min-kappa",
    type=FiniteFloatRange(-1, 1),
    default=0.6,
    show_default=True,
    help="Pass only when the lower bound of kappa's 95% interval (weighted kappa's, for "
    "scores) is at least this.",
)
@click.option(
    "--max-shift",
    type=FiniteFloatRange(0, 1),
    default=0.05,
    show_default=True,
    help="Pass only when the pass-rate difference's 95% interval lies within ±this.",
)
@click.option("--base-url", default=None, help="Endpoint of the candidate's API (a proxy).")
@click.option(
    "--recordings",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Replay the candidate's answers from this recordings file (JSONL, as `verifier "
    "run --recordings` reads): no call is made and no key is needed.",
)
@click.option(
    "--resume",
    "resume_id",
    metavar="TRIAL",
    default=None,
    help="Continue an interrupted trial (`last`: the newest of JUDGE): the verdicts it "
    "drew and did not answer are asked; its rule, filters and seed are kept.",
)
@STORE_OPTION
@format_option("table", "json")
def trial(
    judge: str,
    model: str | None,
    prompt: Path | None,
    contract_id: str | None,
    run_id: str | None,
    sample: int,
    seed: int,
    min_kappa: float,
    max_shift: float,
    base_url: str | None,
    recordings: Path | None,
    resume_id: str | None,
    store: str | None,
    fmt: str,
) -> NoReturn:
    """Re-ask a sample of judge JUDGE's stored pass/fail verdicts and scores on a scale
    with model --to and report how alike it judges: agreement, Cohen's kappa (weighted
    kappa and the mean shift with Wilcoxon's test, for scores), the pass rates before
    and after, McNemar's exact test and the flipped verdicts. The decision rule is
    printed first; the trial is sealed into the store. Exit 0: the rule passed; 1: it
    failed or could not be applied; 2: nothing to trial, or the candidate's API key is
    unset; 130: interrupted (what was asked is kept: resume with --resume)."""
    from verifier.engine.stoppable import Terminated
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store
    from verifier.gaps.trials import TrialStore
    from verifier.trial import Candidate, TrialInterrupted, TrialRule, trial_judge

    target = existing_store(store)
    run_id = run_id and resolve_run(target, run_id)
    try:
        resumed = _resumed(target, judge, resume_id, model)
        model = model or (resumed.candidate_model if resumed is not None else None)
        if model is None:
            fail("judge trial needs --to MODEL, the candidate (or --resume TRIAL)")
        candidate = Candidate(judge, model, prompt, base_url, recordings)
        terminated = False
        # The rule goes out before the first call: on stderr when stdout carries JSON.
        say = (lambda line: click.echo(line, err=True)) if fmt == "json" else click.echo
        try:
            with open_store(target) as gap_store:
                report = trial_judge(
                    gap_store, candidate, rule=TrialRule(min_kappa, max_shift),
                    contract_id=contract_id, run_id=run_id, sample=sample, seed=seed,
                    announce=say, resume=resumed,
                )  # fmt: skip
        except TrialInterrupted as stopped:
            report = stopped.report
            terminated = isinstance(stopped.__cause__, Terminated)
        with TrialStore(target) as trials:
            trials.save(report.row())
    except VerifierError as exc:
        fail(str(exc))
    if report.interrupted:
        click.echo(f"interrupted: {report.decision()[1]}", err=True)
        sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)
    _print(report, fmt)
    sys.exit(EXIT_OK if report.decision()[0] == "pass" else EXIT_FAILED)


def _resumed(target: str, judge: str, resume_id: str | None, model: str | None) -> TrialRow | None:
    """The interrupted trial ``--resume`` names, checked against JUDGE and ``--to``."""
    if resume_id is None:
        return None
    from verifier.gaps.trials import TrialStore

    with TrialStore(target, read_only=True) as trials:
        found = trials.sealed_trial(resume_id, judge=judge)
    if model is not None and model != found.candidate_model:
        fail(f"trial {found.trial_id} asked {found.candidate_model}, not {model}: leave out --to")
    return found


def _print(report: TrialReport, fmt: str) -> None:
    if fmt == "json":
        import orjson

        click.echo(orjson.dumps(report.as_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo("")
        click.echo("\n".join(report.lines()))


@judge_group.command("switch")
@click.argument("judge")
@click.option(
    "--trial",
    "trial_id",
    required=True,
    metavar="TRIAL",
    help="The id of the trial that measured the successor (`verifier judge trial` prints it).",
)
@click.option(
    "--write",
    "contract",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="Also set the judge's `model:` in this contract file to the trial's candidate "
    "(nothing else in the file changes).",
)
@click.option(
    "--accept-failed",
    metavar="REASON",
    default=None,
    help="Record the succession although the trial did not pass, with this reason.",
)
@STORE_OPTION
@format_option("table", "json")
def switch(
    judge: str,
    trial_id: str,
    contract: Path | None,
    accept_failed: str | None,
    store: str | None,
    fmt: str,
) -> None:
    """Record that judge JUDGE moves to the model trial --trial measured: a sealed
    succession (old triples -> new triples, the trial, its rule, outcome and figures)
    that `verifier audit` names instead of judge drift and `verifier judges` shows as
    the successor. A trial that did not pass is refused unless --accept-failed gives a
    reason. Exit 0: recorded; 2: refused (nothing recorded, the file unchanged)."""
    from verifier.errors import VerifierError
    from verifier.trial import switch_judge

    target = existing_store(store)
    try:
        done = switch_judge(target, judge, trial_id, accept_failed=accept_failed, write=contract)
    except VerifierError as exc:
        fail(str(exc))
    if fmt == "json":
        import dataclasses

        import orjson

        document = {
            "succession": dataclasses.asdict(done.row),
            "summary": done.row.summary(),
            "written": str(done.edit.path) if done.edit is not None else None,
        }
        click.echo(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo("\n".join(done.lines()))
