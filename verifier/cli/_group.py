"""A click group with a default command, so a command can grow modes without breaking."""

from __future__ import annotations

from typing import Any

import click

__all__ = ["DefaultCommandGroup"]


class DefaultCommandGroup(click.Group):
    """A group that runs ``default_command`` when the first argument names no command.

    ``verifier import FILE`` keeps meaning the JSONL import while ``verifier import
    promptfoo FILE`` picks the promptfoo one. (A JSONL file literally named after a
    subcommand has to be given as ``./promptfoo``.)
    """

    def __init__(self, *args: Any, default_command: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.default_command = default_command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)
