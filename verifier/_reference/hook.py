"""The MkDocs hook that fills the generated parts of the reference pages at build time.

A page asks for a part with a line of its own, ``<!-- generated: NAME -->``; an unknown
name stops the build, so a typo cannot ship an empty page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

__all__ = ["GENERATED", "on_config", "on_page_markdown", "render"]

_MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)


def _contract() -> str:
    from verifier._reference.schema_tables import render_schema
    from verifier.contract.schema import contract_json_schema

    return render_schema(contract_json_schema(), title="Contract")


def _gap_row() -> str:
    from verifier._reference.schema_tables import render_schema
    from verifier.gaps.row import gap_row_json_schema

    return render_schema(gap_row_json_schema(), title="Gap row")


def _http() -> str:
    from verifier._reference.http import render_http

    return render_http()


def _python() -> str:
    from verifier._reference.python_api import render_python_api

    return render_python_api()


GENERATED: dict[str, Callable[[], str]] = {
    "contract-schema": _contract,
    "gap-row-schema": _gap_row,
    "http-routes": _http,
    "python-api": _python,
}
"""Each part a page may ask for, by the name its marker uses."""


def render(name: str) -> str:
    """The Markdown of the generated part ``name``.

    Raises:
        KeyError: No part has that name.
    """
    return GENERATED[name]()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # mkdocs-click lists a group's loaded ``commands`` when there are any, and only
    # asks the group for the rest when none is loaded; the ``verifier`` group loads
    # its commands lazily, so load them all and every command is documented.
    import click

    from verifier.cli import main

    with click.Context(main) as ctx:
        for name in main.list_commands(ctx):
            main.get_command(ctx, name)
    return config


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    def fill(match: re.Match[str]) -> str:
        try:
            return render(match.group(1))
        except KeyError:
            from mkdocs.exceptions import PluginError

            raise PluginError(
                f"{page.file.src_path}: no generated part named {match.group(1)!r}"
            ) from None

    return _MARKER.sub(fill, markdown)
