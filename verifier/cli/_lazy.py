"""A click group whose commands are imported only when one is looked up.

``verifier check`` then loads the check command alone, not the modules of the other
seventeen commands and whatever they import at the top. Help lists every command,
so ``verifier --help`` still loads them all; they import only click and light
modules at the top, so that stays fast too.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from verifier.cli._output import OutputFaultGroup

__all__ = ["LazyGroup"]


class LazyGroup(OutputFaultGroup):
    """The ``verifier`` group, its commands named as ``module:attribute`` until needed.

    Args:
        lazy_commands: Command name to ``module:attribute`` of the click command.
    """

    def __init__(self, *args: Any, lazy_commands: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            module, _, attribute = self.lazy_commands[cmd_name].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise TypeError(f"{self.lazy_commands[cmd_name]} is not the command {cmd_name!r}")
            self.add_command(command)
        return super().get_command(ctx, cmd_name)
