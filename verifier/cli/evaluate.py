"""``verifier evaluate``: judge one output against assertions."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from verifier._terminal import printable
from verifier.cli._options import (
    EXIT_FAILED,
    EXIT_INVALID,
    EXIT_OK,
    STORE_OPTION,
    single_judge_options,
    store_target,
)


@click.command("evaluate")
@click.argument("evaluation", metavar="FILE")
@single_judge_options(modes=("live", "replay", "record"))
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
    store: str | None,
) -> None:
    """Judge one output against assertions: the PRD's single-evaluation JSON in FILE (- for
    stdin), its result as JSON on stdout, one gap row per assertion in the store."""
    import json

    from verifier.errors import VerifierError
    from verifier.evaluate import evaluate, read_evaluation
    from verifier.gaps.store import redacted_target
    from verifier.judge.config import choose_judge

    target = store_target(store)
    try:
        request = read_evaluation(evaluation)
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
        result = evaluate(
            request,
            judge,
            source=Path("stdin" if evaluation == "-" else evaluation),
            store=target,
            mode=judge_mode,  # type: ignore[arg-type]
            recordings=recordings,
            note=lambda text: click.echo(f"note: {text}", err=True),
        )
    except VerifierError as exc:
        for line in str(exc).splitlines():
            click.echo(f"error: {printable(line)}", err=True)
        sys.exit(EXIT_INVALID)
    report = result.as_json()
    click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    click.echo(
        f"evaluation {result.run_id}: {report['passed']}/{report['total']} assertions passed; "
        f"gap rows in {redacted_target(target)}",
        err=True,
    )
    sys.exit(EXIT_OK if result.passed else EXIT_FAILED)
