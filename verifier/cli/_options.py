"""What the commands share: exit codes, the store they use, the one-line failure, and
the option blocks more than one command declares.

Only click and light modules are imported here, so every command module can use it
without slowing ``verifier --help``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from verifier.cli._output import fail_line
from verifier.cli._types import ProviderChoice
from verifier.gaps.run_refs import is_reserved, parse_reference
from verifier.gaps.target import DEFAULT_STORE, sqlite_path, store_target

__all__ = [
    "ALLOW_OUTSIDE_OPTION",
    "ANNOTATIONS_OPTION",
    "DEFAULT_STORE",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "NEW_RUN_ID",
    "NEW_RUN_ID_RULE",
    "RUN_ID",
    "STORE_OPTION",
    "annotating",
    "existing_store",
    "fail",
    "format_option",
    "resolve_run",
    "single_judge_options",
    "stacked",
    "store_target",
    "window_option",
]

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_INTERRUPTED = 130
"""What a command stopped by Ctrl-C exits with (128 + SIGINT), its work so far kept."""
EXIT_TERMINATED = 143
"""What a command stopped by SIGTERM exits with (128 + SIGTERM), its work so far kept."""


STORE_OPTION = click.option(
    "--store",
    default=None,
    help=f"Gap-row store: a SQLite file or a postgresql:// URL.  [default: {DEFAULT_STORE}]",
)

ANNOTATIONS_OPTION = click.option(
    "--annotations",
    type=click.Choice(["auto", "github", "none"]),
    default="auto",
    show_default=True,
    help="GitHub annotations (on stderr) at the contract lines concerned; "
    "auto: github when GITHUB_ACTIONS=true.",
)

ALLOW_OUTSIDE_OPTION = click.option(
    "--allow-outside",
    "allow_outside",
    multiple=True,
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Let the contract name files (schema_file, prompt, template_file, cwd) under DIR "
    "too; by default they must lie in the contract's folder or below.",
)


class RunIdType(click.ParamType[str, str]):
    """A run: its id, or ``last`` / ``last~N`` counted back from the store's newest run.

    Parsing checks the form only; ``resolve_run`` finds the run once the store is known
    (``--store`` may come later on the command line).
    """

    name = "run"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            parse_reference(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return value


RUN_ID = RunIdType()
"""The type of every option and argument naming a stored run."""

NEW_RUN_ID_RULE = (
    "1 to 100 letters, digits, '_', '.' or '-', starting with a letter or digit; "
    "never last or last~N"
)
"""What a run id given to a new run may be, as ``--help`` and the error say it."""

_NEW_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


class NewRunIdType(click.ParamType[str, str]):
    """The id of a run about to begin (``run --run-id``).

    It is printed in logs and CI annotations and becomes part of viewer and API URLs and
    file names, so only characters that need no quoting anywhere are taken: no ``/``, no
    spaces or control characters, nothing a shell or SQL would read as syntax.
    """

    name = "run id"

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None) -> str:
        # fullmatch, not match with ``$``: ``$`` also matches before a final newline.
        if _NEW_RUN_ID.fullmatch(value) is None or is_reserved(value):
            shown = value if len(value) <= 40 else value[:40] + "..."
            self.fail(f"{shown!r} is not a run id: {NEW_RUN_ID_RULE}", param, ctx)
        return value


NEW_RUN_ID = NewRunIdType()
"""The type of ``--run-id``: the id a new run is given."""


def resolve_run(target: str, run_id: str, *, contract_id: str | None = None) -> str:
    """The id of the run ``run_id`` names in the store ``target`` (``last~N`` resolved).

    A plain run id is returned as it is, without opening the store; a reference the
    store cannot satisfy ends the command with one line (exit 2).

    Args:
        target: The store, as ``store_target`` or ``existing_store`` returned it.
        run_id: A run id, ``last`` or ``last~N``.
        contract_id: Count only the runs of this contract.
    """
    from verifier.errors import VerifierError
    from verifier.gaps.store import open_store, resolve_run_id

    if parse_reference(run_id) is None:
        return run_id
    try:
        with open_store(target) as gap_store:
            return resolve_run_id(gap_store, run_id, contract_id=contract_id)
    except VerifierError as exc:
        fail(str(exc))


def stacked(*options: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator applying ``options`` so ``--help`` lists them in the order given."""

    def apply(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def format_option(*choices: str) -> Callable[[Any], Any]:
    """``--format`` among ``choices`` (into ``fmt``), by default the first of them.

    Args:
        choices: The formats the command writes, its default first.

    Returns:
        The option's decorator.
    """
    return click.option(
        "--format", "fmt", type=click.Choice(list(choices)), default=choices[0], show_default=True
    )


class _WindowType(click.ParamType[Any]):
    """A rolling window (``verifier.analyses.window.parse_window``): runs or a span."""

    name = "window"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from verifier.analyses.window import Window, parse_window

        if isinstance(value, Window):
            return value
        try:
            return parse_window(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def window_option(help: str) -> Callable[[Any], Any]:
    """``--window``: the earlier runs a run's pass rate is compared with for alerts, a
    count of runs (``5``) or a span of time before the run (``4w``, ``28d``, ``12h``).

    Args:
        help: The option's help text.

    Returns:
        The option's decorator.
    """
    return click.option(
        "--window",
        type=_WindowType(),
        default="5",
        show_default=True,
        metavar="RUNS|SPAN",
        help=help + " A count of runs (at least 3), or a span before each run: 12h, 28d, 4w.",
    )


def single_judge_options(modes: tuple[str, ...]) -> Callable[[Any], Any]:
    """The options naming the one judge of ``evaluate`` and ``serve``, and its mode.

    Args:
        modes: The judge modes ``--judges`` accepts.

    Returns:
        A decorator adding the options to a command.
    """
    return stacked(
        click.option(
            "--provider",
            type=ProviderChoice(),
            default=None,
            help="Judge provider (with --model).",
        ),
        click.option(
            "--model",
            default=None,
            help="The judge's exact, pinned model id; without --provider, a prefix names the "
            "provider (azure/DEPLOYMENT, openai/ID; none: anthropic).",
        ),
        click.option(
            "--base-url", default=None, help="Judge endpoint (OpenAI-compatible servers)."
        ),
        click.option(
            "--max-tokens",
            type=click.IntRange(1, 128_000),
            default=None,
            help="The judge's max_tokens.  [default: 1024]",
        ),
        click.option(
            "--config",
            "config_path",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="YAML file whose `judges:` mapping declares judges as contracts do.",
        ),
        click.option("--judge", "judge_name", default=None, help="The judge of --config to use."),
        click.option(
            "--judges",
            "judge_mode",
            type=click.Choice(list(modes)),
            default=None,
            help="As for `verifier run`.  "
            "[default: live when the judge's API key is set, else replay]",
        ),
        click.option(
            "--recordings",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help="Recorded judge verdicts (JSONL).",
        ),
    )


def annotating(annotations: str) -> bool:
    """Whether ``--annotations`` asks for GitHub annotations here."""
    return annotations == "github" or (
        annotations == "auto" and os.environ.get("GITHUB_ACTIONS") == "true"
    )


def fail(message: str, code: int = EXIT_INVALID) -> NoReturn:
    """Prints ``error: message`` on stderr and exits ``code`` (by default: invalid usage)."""
    fail_line(message, code)


def existing_store(store: str | None) -> str:
    """The store a reading command uses, which must already exist.

    A missing SQLite file, or an empty one (which SQLite would silently turn into a
    new store), is refused before anything opens it: an audit or report of a mistyped
    path must fail rather than report an empty record as fine.
    """
    target = store_target(store)
    path = sqlite_path(target)
    if path is not None:
        file = Path(path)
        if not file.is_file():
            fail(f"{path}: no store found (run `verifier run` first or pass --store)")
        if file.stat().st_size == 0:
            fail(f"{path}: the file is empty, not a gap store (run `verifier run` first)")
    return target
