"""The public surface: what ``verifier`` and its packages export, and how a type checker sees it.

A lazy package (``verifier``, ``verifier.gaps``, ...) names its exports twice: in
``_EXPORTS`` for the import on first use, and under ``TYPE_CHECKING`` for type
checkers. The tests here keep the two equal, check that every package states its
public names, that the docs import only from ``verifier``, and that ``mypy --strict``
on a user's file sees the real types, not ``Any``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import verifier
from tests.conftest import ROOT

PACKAGE = Path(verifier.__file__).parent


def _packages() -> list[str]:
    """Every package under ``verifier`` (itself included), by dotted name, read from disk."""
    names = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        parts = init.parent.relative_to(PACKAGE.parent).parts
        if "__pycache__" not in parts:
            names.append(".".join(parts))
    return names


def _tree(package: str) -> ast.Module:
    init = PACKAGE.parent.joinpath(*package.split("."), "__init__.py")
    return ast.parse(init.read_text(encoding="utf-8"))


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _type_checking_imports(package: str) -> dict[str, str]:
    """Each name imported under ``if TYPE_CHECKING:`` as ``X as X``, and its module."""
    imported: dict[str, str] = {}
    for node in _tree(package).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
            for alias in statement.names:
                # ``X as X`` is what marks a name as re-exported to mypy --strict.
                assert alias.asname == alias.name, ast.unparse(statement)
                assert alias.name not in imported, f"{alias.name} imported twice"
                imported[alias.name] = str(statement.module)
    return imported


def _lazy_packages() -> list[str]:
    """The packages that assign ``_EXPORTS`` in their ``__init__``."""
    return [
        name
        for name in _packages()
        if any(
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
            for node in _tree(name).body
        )
    ]


LAZY = _lazy_packages()


def test_the_lazy_packages_are_found() -> None:
    assert {"verifier", "verifier.gaps", "verifier.analyses", "verifier.transfer"} <= set(LAZY)


@pytest.mark.parametrize("package", LAZY)
def test_type_checking_imports_name_the_exports_from_the_same_modules(package: str) -> None:
    exports: dict[str, str] = importlib.import_module(package)._EXPORTS
    assert _type_checking_imports(package) == exports


@pytest.mark.parametrize("package", LAZY)
def test_each_lazy_export_is_the_object_its_module_defines(package: str) -> None:
    module = importlib.import_module(package)
    for name, source in module._EXPORTS.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)
    assert sorted(module._EXPORTS) == sorted(set(module.__all__) - {"__version__"})
    assert dir(module) == sorted(module.__all__)


def test_verifier_maps_each_class_and_function_to_the_module_defining_it() -> None:
    # The Python reference documents each name from the module _EXPORTS names.
    for name, source in verifier._EXPORTS.items():
        value = getattr(verifier, name)
        if isinstance(value, type) or inspect.isfunction(value):
            assert value.__module__ == source, f"verifier.{name} is from {value.__module__}"


@pytest.mark.parametrize("package", LAZY)
def test_a_name_a_lazy_package_does_not_export_is_an_attribute_error(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=rf"^module '{package}' has no attribute 'nope'$"):
        module.nope  # noqa: B018


@pytest.mark.parametrize("package", _packages())
def test_every_package_states_its_public_names_and_each_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert "__all__" in vars(module), f"{package} declares no __all__"
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None or name == "__version__"


# A package that declares its names must not pay for the SDKs or the statistics on import.
_IMPORT_PROBE = """\
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""
_HEAVY = ("anthropic", "openai", "httpx", "scipy", "numpy", "jinja2", "rich", "fastapi", "mcp")
_LIGHT_PACKAGES = (
    "verifier",
    "verifier.judge",
    "verifier.llm",
    "verifier.compare",
    "verifier.contract",
    "verifier.rubric",
    "verifier.engine",
    "verifier.run",
    "verifier.report",
    "verifier.gaps",
    "verifier.gaps.sqlite",
    "verifier.gaps.postgres",
    "verifier.analyses",
    "verifier.transfer",
    "verifier.viewer",
    "verifier.mcp_server",
    "verifier.integrations",
)


def test_importing_a_package_loads_no_sdk_nor_heavy_library() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, *_LIGHT_PACKAGES],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = {name.partition(".")[0] for name in json.loads(result.stdout)}
    assert set(_LIGHT_PACKAGES) <= set(json.loads(result.stdout))
    assert loaded.isdisjoint(_HEAVY), loaded & set(_HEAVY)


_DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# promptfoo loads its assertion hook by module path, so that module is named as such.
_HOOK_MODULES = {"verifier.integrations.promptfoo_assert"}
# The names: parenthesised, or on one line (continued past a line ending in a comma).
_IMPORT = re.compile(r"from (verifier[\w.]*) import (\([^)]*\)|(?:,\n|[\w ,])*)")


def _doc_imports() -> list[tuple[str, str, str]]:
    """(file, module, name) of every ``from verifier... import`` in the user docs."""
    found = []
    for doc in _DOCS:
        if doc.name in {"adr.md", "changelog.md"}:
            continue
        for module, names in _IMPORT.findall(doc.read_text(encoding="utf-8")):
            for name in re.split(r"[,\s]+", names.strip("() \n")):
                if name:
                    found.append((doc.name, module, name))
    return found


def test_the_docs_import_public_names_from_verifier_itself() -> None:
    imports = _doc_imports()
    assert ("pytest.md", "verifier", "make_writer") in imports
    for doc, module, name in imports:
        if module in _HOOK_MODULES:
            continue
        assert module == "verifier", f"{doc} imports {name} from {module}"
        assert name in verifier.__all__, f"{doc} imports {name}, which verifier does not export"


def test_the_docs_name_no_public_name_by_an_inner_module() -> None:
    inner = re.compile(r"`verifier\.(?:[a-z_]+\.)+([A-Za-z_]\w*)")
    for doc in _DOCS:
        if doc.name in {"adr.md", "changelog.md"}:
            continue
        for name in inner.findall(doc.read_text(encoding="utf-8")):
            assert name not in verifier.__all__, f"{doc.name} names verifier.….{name}"


_USER_FILE = """\
from verifier import Judges, audit_store, load_contract, make_writer, open_store, run_contract
from verifier.analyses import audit_history
from verifier.gaps import SqliteStore
from verifier.transfer import export_jsonl

reveal_type(run_contract)
reveal_type(load_contract)
reveal_type(open_store)
reveal_type(audit_store)
reveal_type(make_writer)
reveal_type(Judges)
reveal_type(audit_history)
reveal_type(SqliteStore)
reveal_type(export_jsonl)
"""


def test_mypy_strict_sees_the_real_types_of_the_public_names(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(_USER_FILE, encoding="utf-8")
    (tmp_path / "typo.py").write_text("from verifier import run_contrakt\n", encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            "mypy.ini",
            "--cache-dir",
            str(tmp_path / "cache"),
            "user.py",
            "typo.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    revealed = re.findall(r'^user\.py:\d+: note: Revealed type is "(.*)"$', result.stdout, re.M)
    assert len(revealed) == 9, result.stdout + result.stderr
    run_contract, load_contract, open_store, audit_store, make_writer, judges, *rest = revealed
    assert "Any" not in revealed, result.stdout
    assert run_contract.startswith("def (contract:"), run_contract
    assert run_contract.endswith("-> verifier.run.api.RunResult"), run_contract
    assert load_contract.endswith("-> verifier.contract.load.LoadedContract"), load_contract
    assert open_store.endswith("-> verifier.gaps.store.GapStore"), open_store
    assert audit_store.endswith("AuditReport"), audit_store
    assert make_writer.endswith("-> verifier.report.ReportWriter"), make_writer
    assert judges.startswith("def (mode:"), judges
    assert judges.endswith("-> verifier.run.assembly.Judges"), judges
    assert "-> verifier.analyses.history.HistoryAudit" in rest[0], rest[0]
    assert "verifier.gaps.sqlite.store.SqliteStore" in rest[1], rest[1]
    assert "-> verifier.transfer.export.ExportSummary" in rest[2], rest[2]
    # A name verifier does not export is an error, not an Any.
    assert re.search(
        r'^typo\.py:1: error: Module "verifier" has no attribute "run_contrakt"',
        result.stdout,
        re.M,
    ), result.stdout
