"""No module of ``verifier/`` over 450 lines, no function over 100.

Every module is read with ``ast``; a function is measured from its ``def`` line to its
last line, whatever it is: a function, a method, a nested function or an ``async`` one,
leaving out its docstring (a public function's full ``Args:`` section is documentation
to read, not code to follow).
A failure lists each offender as ``path:line name N lines``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests.conftest import ROOT

MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 100

PACKAGE = ROOT / "verifier"

_EXEMPT: dict[tuple[str, str], str] = {
    ("verifier/engine/runner.py", "check_chunk"): (
        "the runner's per-row hot loop, kept inline: a call per row costs more than the "
        "length saves"
    ),
}
"""Functions allowed past the limit, by (module path, function name), each with why."""


def _functions(tree: ast.AST) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function in ``tree`` with its dotted name (``Class.method``, ``outer.inner``)."""

    def walk(
        node: ast.AST, prefix: str
    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                yield name, child
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return (first.end_lineno or first.lineno) - first.lineno + 1
    return 0


def long_functions(source: str, path: str) -> list[tuple[str, int, str, int]]:
    """``(path, line, name, lines)`` of every function of ``source`` over the limit."""
    found = []
    for name, node in _functions(ast.parse(source, filename=path)):
        lines = (node.end_lineno or node.lineno) - node.lineno + 1 - _docstring_lines(node)
        if lines > MAX_FUNCTION_LINES:
            found.append((path, node.lineno, name, lines))
    return found


def _modules() -> Iterator[tuple[str, str]]:
    """``(path relative to the repository, source)`` of every module under ``verifier/``."""
    for file in sorted(PACKAGE.rglob("*.py")):
        yield file.relative_to(ROOT).as_posix(), file.read_text(encoding="utf-8")


def _listing(offenders: list[tuple[str, int, str, int]]) -> str:
    return "\n".join(f"{path}:{line} {name} {n} lines" for path, line, name, n in offenders)


def _exempt(path: str, name: str) -> bool:
    return (path, name.rpartition(".")[2]) in _EXEMPT


def test_no_module_exceeds_450_lines() -> None:
    offenders = [
        (path, 1, "module", len(source.splitlines()))
        for path, source in _modules()
        if len(source.splitlines()) > MAX_MODULE_LINES
    ]
    assert not offenders, "modules over 450 lines:\n" + _listing(offenders)


def test_no_function_exceeds_100_lines() -> None:
    offenders = [
        offender
        for path, source in _modules()
        for offender in long_functions(source, path)
        if not _exempt(path, offender[2])
    ]
    assert not offenders, "functions over 100 lines:\n" + _listing(offenders)


def test_every_exemption_names_a_function_still_over_the_limit() -> None:
    over = {
        (path, name.rpartition(".")[2])
        for path, source in _modules()
        for _, _, name, _ in long_functions(source, path)
    }
    stale = sorted(set(_EXEMPT) - over)
    assert not stale, f"exemptions no longer needed (remove them): {stale}"


def _nested(statements: int) -> str:
    """A class whose method holds an ``async`` function of ``statements`` + 2 lines."""
    body = "".join(f"            x{i} = {i}\n" for i in range(statements))
    return (
        "class Outer:\n"
        "    def method(self):\n"
        "        async def inner():\n"
        f"{body}"
        "            return 1\n"
        "        return inner\n"
        "\n"
        "\n"
        "def short():\n"
        "    return 0\n"
    )


def test_the_walk_measures_methods_and_nested_async_functions() -> None:
    found = long_functions(_nested(99), "m.py")
    assert [(path, line, name, n) for path, line, name, n in found] == [
        ("m.py", 2, "Outer.method", 103),
        ("m.py", 3, "Outer.method.inner", 101),
    ]
    assert _listing(found).splitlines()[1] == "m.py:3 Outer.method.inner 101 lines"


def test_a_function_of_exactly_100_lines_passes() -> None:
    found = long_functions(_nested(98), "m.py")
    assert [(name, n) for _, _, name, n in found] == [("Outer.method", 102)]


def test_a_docstring_is_not_counted_but_code_is() -> None:
    docstring = '    """Args:\n' + "".join(f"        a{i}: one.\n" for i in range(20)) + '    """\n'
    code = "".join(f"    x{i} = {i}\n" for i in range(99))
    assert long_functions("def f():\n" + docstring + code, "m.py") == []
    longer = "def f():\n" + docstring + code + "    return x0\n"
    assert long_functions(longer, "m.py") == [("m.py", 1, "f", 101)]
