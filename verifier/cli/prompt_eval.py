"""``verifier prompt-eval``: run a prompt on examples and score it, the evaluator's way."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from verifier.cli._options import EXIT_FAILED, EXIT_INVALID, EXIT_OK, STORE_OPTION, store_target


@click.command("prompt-eval")
@click.argument("requests", metavar="FILE [FILE2]", nargs=-1, required=True)
@click.option(
    "--judges",
    "judge_mode",
    type=click.Choice(["live", "replay", "record"]),
    default=None,
    help="How the target and judge models answer (default: live with a key, else replay).",
)
@click.option(
    "--recordings",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Recorded replies (default in replay: FILE's NAME.recordings.jsonl beside it).",
)
@click.option(
    "--config",
    "config",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Settings file (YAML: models.target, models.judge, optimization.batch_size, "
    "optimization.seed; default: prompt-eval.config.yaml here, if present). A request's "
    "own keys win over it.",
)
@click.option("--model", default=None, help="The target model (overrides request and file).")
@click.option("--judge-model", default=None, help="The judge model (overrides request and file).")
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    help="Examples evaluated, drawn at random with the seed (overrides request and file).",
)
@click.option("--seed", type=int, default=None, help="The seed of that draw (overrides both).")
@STORE_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the feedback; json: the evaluator's answer with the run id.",
)
def prompt_eval_command(
    requests: tuple[str, ...],
    judge_mode: str | None,
    recordings: Path | None,
    config: Path | None,
    model: str | None,
    judge_model: str | None,
    batch_size: int | None,
    seed: int | None,
    store: str | None,
    fmt: str,
) -> None:
    """Evaluate the prompt in FILE (JSON: prompt, training_examples and/or
    negative_examples, model, judge_model, batch_size, seed): run it on each example,
    judge every check, score 50% empirical, 30% structural, 20% adversarial (pass at
    70/100). Each evaluation is a run of gap rows. With FILE2, evaluate both prompts and
    compare their example results pair by pair. A check the judge could not answer is
    not scored and leaves the evaluation incomplete. Exit 0 when every prompt passed.

    Settings come from the file (--config), then the request, then the options, each
    overriding the one before."""
    from verifier._internal.json_documents import read_document
    from verifier._internal.terminal import printable
    from verifier.errors import VerifierError
    from verifier.gaps.store import redacted_target
    from verifier.prompt_eval.models import EvaluateRequest
    from verifier.prompt_eval.run import evaluate_prompt
    from verifier.prompt_eval.scoring import not_answered, shown
    from verifier.prompt_eval.settings import request_settings
    from verifier.run.assembly import Judges

    if len(requests) > 2:
        raise click.UsageError("give one request file, or two to compare their prompts")
    target = store_target(store)
    evaluated = []
    flags = {"model": model, "judge_model": judge_model, "batch_size": batch_size, "seed": seed}
    try:
        settings = request_settings(config, flags)
        for name in requests:
            request = read_document(
                name, EvaluateRequest, "a prompt evaluation", prepare=settings.apply
            )
            judges = Judges(mode=judge_mode, recordings=recordings)  # type: ignore[arg-type]
            evaluated.append(
                evaluate_prompt(
                    request,
                    store=target,
                    judges=judges,
                    contract_path=Path(name).with_suffix(".yaml"),
                    note=lambda text: click.echo(f"note: {printable(text)}", err=True),
                )
            )
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
    if fmt == "json":
        documents = [e.report().model_dump(mode="json") for e in evaluated]
        click.echo(json.dumps(documents[0] if len(documents) == 1 else documents, indent=2))
    else:
        for index, evaluation in enumerate(evaluated):
            if len(evaluated) > 1:
                click.echo(f"{'' if index == 0 else chr(10)}== {requests[index]} ==")
            click.echo(evaluation.feedback())
    for name, evaluation in zip(requests, evaluated, strict=True):
        points = evaluation.evaluation.points
        if points is None:
            outcome = f"incomplete ({not_answered(evaluation.evaluation.unanswered)})"
        else:
            # The feedback's scale (JSON's ``score`` stays a fraction of 1).
            outcome = f"{shown(points)}/100, {evaluation.verdict}"
        click.echo(
            f"prompt-eval {evaluation.run_id} ({name}): {outcome}; "
            f"gap rows in {redacted_target(target)}",
            err=True,
        )
    if len(evaluated) == 2:
        _compare(target, evaluated[0].run_id, evaluated[1].run_id, fmt)
    sys.exit(EXIT_OK if all(e.passed for e in evaluated) else EXIT_FAILED)


def _compare(target: str, first: str, second: str, fmt: str) -> None:
    """The paired comparison of the two prompts' example results (the first as baseline)."""
    from verifier.compare.analysis import compare_runs
    from verifier.compare.report import write_report
    from verifier.gaps.store import open_store

    with open_store(target) as gap_store:
        comparison = compare_runs(gap_store, first, second)
    out = sys.stderr if fmt == "json" else sys.stdout
    out.write("\nExample results, prompt 2 against prompt 1 (paired):\n")
    write_report(comparison, "console", out)
