"""The built reference pages name everything the code offers.

The site is built once, as CI builds it (`mkdocs build --strict`), and each reference
page is read as a reader gets it; the code is walked on its own (the click commands,
the JSON Schemas, the server's routes, the variables the source reads), so a command,
key, route or variable the pages leave out fails here.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import click
import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

REFERENCE = (
    "cli",
    "contract",
    "predicates",
    "judge-verdict-kinds",
    "http",
    "python",
    "gap-row",
    "exit-codes",
    "environment",
)


class _Sections(HTMLParser):
    """The text of a page's article, cut at each heading: ``[(heading, text), ...]``."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[list[str]] = [["", ""]]
        self._in_article = False
        self._heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "article":
            self._in_article = True
        elif self._in_article and re.fullmatch(r"h[1-6]", tag):
            self._heading = True
            self.sections.append(["", ""])

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article = False
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading = False

    def handle_data(self, data: str) -> None:
        if self._in_article:
            self.sections[-1][0 if self._heading else 1] += data


def _sections(page: str, site: Path) -> dict[str, str]:
    parser = _Sections()
    parser.feed((site / "reference" / page / "index.html").read_text(encoding="utf-8"))
    # A heading's first line is its name (mkdocstrings adds labels such as "dataclass").
    return {head.strip().split("\n")[0].strip(" ¶"): text for head, text in parser.sections}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return out


def _page_text(page: str, site: Path) -> str:
    return "\n".join(f"{head}\n{text}" for head, text in _sections(page, site).items())


def _commands(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[str, click.Command, click.Context]]:
    yield ctx.command_path, command, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from _commands(sub, click.Context(sub, parent=ctx, info_name=name))


def test_every_reference_page_is_built(site: Path) -> None:
    for page in REFERENCE:
        assert _sections(page, site), page


def test_every_command_and_option_is_on_the_cli_page(site: Path) -> None:
    from verifier.cli import main

    sections = _sections("cli", site)
    for path, command, _ in _commands(main, click.Context(main, info_name="verifier")):
        assert path in sections, f"no section for {path}"
        text = sections[path]
        if command.help:
            assert command.help.split()[0] in text
        for param in command.params:
            if isinstance(param, click.Option) and param.hidden:
                continue
            for name in [*param.opts, *param.secondary_opts]:
                if isinstance(param, click.Argument):
                    name = param.make_metavar(click.Context(command))
                assert name in text, f"{path}: {name} is not on the page"


def _properties(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``(definition, key)`` of every key of the schema: ``""`` for the top level."""
    for key in schema.get("properties", {}):
        yield "", key
    for name, definition in schema.get("$defs", {}).items():
        for key in definition.get("properties", {}):
            yield name, key


def _assert_schema_on_page(schema: dict[str, Any], page: str, title: str, site: Path) -> None:
    sections = _sections(page, site)
    for definition, key in _properties(schema):
        heading = definition or title
        assert heading in sections, f"{page}: no section {heading}"
        assert re.search(rf"^{re.escape(key)}\b", sections[heading], re.M), (
            f"{page}: {heading}.{key} is not on the page"
        )


def test_every_contract_key_is_on_the_contract_page(site: Path) -> None:
    from verifier.contract.schema import contract_json_schema

    schema = contract_json_schema()
    assert {"claims", "judges", "sut", "record"} <= set(schema["properties"])
    _assert_schema_on_page(schema, "contract", "Contract", site)


def test_every_gap_row_field_is_on_the_gap_row_page(site: Path) -> None:
    from verifier.gaps.row import gap_row_json_schema

    schema = gap_row_json_schema()
    assert {"row_hash", "prev_hash", "evidence"} <= set(schema["properties"])
    _assert_schema_on_page(schema, "gap-row", "Gap row", site)


def test_every_route_of_the_server_is_on_the_http_page(site: Path) -> None:
    from fastapi.routing import APIRoute
    from starlette.routing import Route

    from verifier.server import ServerSettings, create_app
    from verifier.viewer.app import viewer_router

    text = _page_text("http", site)
    app = create_app(ServerSettings())
    routes = [r for r in app.routes if isinstance(r, Route)]
    routes += [r for r in viewer_router("gaps.db").routes if isinstance(r, APIRoute)]
    assert len(routes) > 15
    for route in routes:
        for method in route.methods or ():
            if method != "HEAD":
                assert f"{method} {route.path}" in text, f"{method} {route.path}"


def test_every_public_name_is_on_the_python_page_with_its_docstring(site: Path) -> None:
    import verifier

    sections = _sections("python", site)
    for name in verifier.__all__:
        if name == "__version__":
            continue
        heading = f"verifier.{name}"
        assert heading in sections, f"no section for {heading}"
        value = getattr(verifier, name)
        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__doc__:
            first_word = value.__doc__.split()[0].strip("`.:")
            assert first_word in sections[heading], heading


def _env_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "TEXT"`` (annotated or not) of one module."""
    found: dict[str, str] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        value = getattr(node, "value", None)
        constant = isinstance(value, ast.Constant) and isinstance(value.value, str)
        if isinstance(target, ast.Name) and constant:
            found[target.id] = value.value
    return found


def _variables_read() -> set[str]:
    """Every variable the package reads: ``os.environ.get``, ``os.getenv``, ``environ[]``,
    ``in os.environ`` and click's ``envvar=``, names resolved through module constants
    and the names modules import from each other."""
    trees = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts): ast.parse(p.read_text("utf-8"))
        for p in (ROOT / "verifier").rglob("*.py")
    }
    constants = {module: _env_constants(tree) for module, tree in trees.items()}
    names: set[str] = set()
    for module, tree in trees.items():
        known = dict(constants[module])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in constants:
                for alias in node.names:
                    if alias.name in constants[node.module]:
                        known[alias.asname or alias.name] = constants[node.module][alias.name]

        def value(node: ast.AST, known: dict[str, str] = known) -> str | None:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value
            return known.get(node.id) if isinstance(node, ast.Name) else None

        for node in ast.walk(tree):
            read: ast.AST | None = None
            if isinstance(node, ast.Call):
                func = ast.unparse(node.func)
                if func in ("os.environ.get", "os.getenv", "environ.get") and node.args:
                    read = node.args[0]
                read = next((k.value for k in node.keywords if k.arg == "envvar"), read)
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                read = node.slice
            elif isinstance(node, ast.Compare) and ast.unparse(node.comparators[0]) == (
                "os.environ"
            ):
                read = node.left
            name = value(read) if read is not None else None
            if name is not None:
                names.add(name)
    return names


def test_every_variable_the_code_reads_is_on_the_environment_page(site: Path) -> None:
    read = _variables_read()
    assert {"VERIFIER_STORE", "VERIFIER_SERVE_TOKEN", "ANTHROPIC_API_KEY", "CI"} <= read
    text = _page_text("environment", site)
    assert {name for name in read if name not in text} == set()


def test_every_exit_code_the_commands_use_is_on_the_exit_codes_page(site: Path) -> None:
    from verifier.cli._options import EXIT_FAILED, EXIT_INVALID, EXIT_OK

    codes = {EXIT_OK, EXIT_FAILED, EXIT_INVALID}
    for path in (ROOT / "verifier" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "sys.exit":
                codes |= {
                    c.value
                    for arg in node.args
                    for c in ast.walk(arg)
                    if isinstance(c, ast.Constant) and type(c.value) is int
                }
    assert {130, 143} <= codes
    headings = _sections("exit-codes", site)
    table = "\n".join(headings.values())
    assert {c for c in codes if not re.search(rf"^{c}$", table, re.M)} == set()


def test_no_reference_page_speaks_of_the_projects_history(site: Path) -> None:
    for page in REFERENCE:
        text = _page_text(page, site)
        for word in (r"\bPRD\b", r"\bADR \d{4}", r"#\d{2,}\b", r"\bissue \d+"):
            assert not re.search(word, text), f"{page}: {re.search(word, text)}"


def test_a_page_asking_for_an_unknown_generated_part_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n<!-- generated: contract-shema -->\n")
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\nhooks: [{ROOT / 'verifier' / '_reference' / 'hook.py'}]\n"
    )
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode != 0
    assert "index.md: no generated part named 'contract-shema'" in built.stderr
