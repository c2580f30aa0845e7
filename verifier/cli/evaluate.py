"""``verifier evaluate``: judge one output against assertions, or a batch of outputs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from verifier._internal.terminal import printable
from verifier.cli._options import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    STORE_OPTION,
    format_option,
    single_judge_options,
    stacked,
    store_target,
)
from verifier.cli._types import FiniteFloatRange

_BATCH_OPTIONS = stacked(
    click.option(
        "--threshold",
        type=FiniteFloatRange(0, 1),
        default=None,
        help="The score (0-1) an evaluation must reach to pass (overrides the request's).  "
        "[default: 1.0]",
    ),
    format_option("json", "batch"),
    click.option(
        "--agent-id", default=None, help="The agent the batch report is about (--format batch)."
    ),
    click.option(
        "--test-suite",
        default=None,
        help="The batch report's test suite (--format batch).  [default: FILE's name]",
    ),
)


@click.command("evaluate")
@click.argument("evaluation", metavar="FILE")
@single_judge_options(modes=("live", "replay", "record"))
@_BATCH_OPTIONS
@STORE_OPTION
def evaluate_command(
    evaluation: str,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    max_tokens: int | None,
    config_path: Path | None,
    judge_name: str | None,
    judge_mode: str | None,
    recordings: Path | None,
    threshold: float | None,
    fmt: str,
    agent_id: str | None,
    test_suite: str | None,
    store: str | None,
) -> None:
    """Judge one output against assertions: a single-evaluation JSON (agent_input,
    agent_output, assertions) in FILE (- for stdin), its result as JSON on stdout, one gap
    row per assertion in the store. A JSON array or JSONL of evaluations is a batch: each
    judged on its own, their results as a JSON array, or one batch report (agent_id,
    test_suite, results, cases) with --format batch."""
    import json

    from verifier.errors import VerifierError
    from verifier.evaluate import evaluate
    from verifier.evaluate.batch import (
        BatchItem,
        batch_report,
        evaluate_batch,
        read_evaluations,
    )
    from verifier.gaps.store import redacted_target
    from verifier.judge.config import choose_judge

    target = store_target(store)
    label = "stdin" if evaluation == "-" else evaluation

    def note(text: str) -> None:
        click.echo(f"note: {text}", err=True)

    try:
        read = read_evaluations(evaluation)
        judge = choose_judge(
            provider=provider,
            model=model,
            base_url=base_url,
            max_tokens=max_tokens,
            config=config_path,
            name=judge_name,
        )
        for warning in judge.warnings:
            click.echo(f"warning: {warning}", err=True)
        if isinstance(read, list) or fmt == "batch":
            items = read if isinstance(read, list) else [BatchItem(label, read)]
            for item in items:
                for problem in item.problems:
                    click.echo(f"error: {printable(problem)}", err=True)
            outcomes = evaluate_batch(
                items,
                judge,
                store=target,
                mode=judge_mode,  # type: ignore[arg-type]
                recordings=recordings,
                threshold=threshold,
                note=note,
            )
        else:
            result = evaluate(
                read,
                judge,
                source=Path(label),
                store=target,
                mode=judge_mode,  # type: ignore[arg-type]
                recordings=recordings,
                threshold=threshold,
                note=note,
            )
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
    stored = f"gap rows in {redacted_target(target)}"
    if isinstance(read, list) or fmt == "batch":
        document: Any = (
            batch_report(outcomes, agent_id=agent_id, test_suite=test_suite or _suite_name(label))
            if fmt == "batch"
            else [outcome.as_json() for outcome in outcomes]
        )
        passed = sum(outcome.passed for outcome in outcomes)
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        click.echo(f"{passed}/{len(outcomes)} evaluations passed; {stored}", err=True)
        sys.exit(EXIT_OK if passed == len(outcomes) else EXIT_FAILED)
    report = result.as_json()
    click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    click.echo(
        f"evaluation {result.run_id}: {report['passed']}/{report['total']} assertions passed "
        f"(score {report['score']:g}, threshold {result.threshold:g}); {stored}",
        err=True,
    )
    sys.exit(EXIT_OK if result.passed else EXIT_FAILED)


def _suite_name(label: str) -> str:
    """A batch's default test suite: its file's name without the suffix."""
    return "stdin" if label == "stdin" else Path(label).stem
