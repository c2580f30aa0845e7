"""``tests/`` mirrors ``verifier/``: every package of code has a tests folder of the same
name, or is named here with the reason it has none; every tests folder names a package,
or is named here with what it holds instead."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT

UNMIRRORED = {
    "_reference": "it generates the reference pages; tests/docs builds and checks them",
}
"""Packages of verifier without a tests folder of their name, and why."""

TOPICS = {
    "core": "the modules at the top of verifier/ (cases, fieldpath, logs, results)",
    "docs": "the README, the documentation pages and the decision records",
    "release": "the changelog, the distribution's name and the release workflow",
    "fixtures": "the files tests read: contracts, cases, recorded replies",
}
"""Tests folders named after no package, and what they hold."""


def _packages() -> set[str]:
    """The folders right under verifier/ that hold Python code."""
    return {
        path.name
        for path in (ROOT / "verifier").iterdir()
        if path.is_dir() and any(path.glob("*.py"))
    }


def _test_folders() -> dict[str, Path]:
    """The folders right under tests/, by name (caches and the like left out)."""
    tests = ROOT / "tests"
    return {
        path.name: path
        for path in tests.iterdir()
        if path.is_dir() and not path.name.startswith((".", "__"))
    }


def test_every_package_has_a_tests_folder_of_its_name_or_a_reason() -> None:
    folders = _test_folders()
    missing = sorted(_packages() - folders.keys() - UNMIRRORED.keys())
    assert missing == [], f"packages with no tests/<name>/ and no reason in UNMIRRORED: {missing}"


def test_every_mirroring_folder_holds_tests() -> None:
    folders = _test_folders()
    empty = sorted(
        name for name in _packages() & folders.keys() if not any(folders[name].rglob("test_*.py"))
    )
    assert empty == [], f"tests folders with no test module: {empty}"


def test_every_tests_folder_names_a_package_or_a_topic() -> None:
    strays = sorted(_test_folders().keys() - _packages() - TOPICS.keys())
    assert strays == [], f"tests folders named after no package of verifier: {strays}"


def test_the_reasons_name_real_packages_without_a_folder() -> None:
    packages, folders = _packages(), _test_folders()
    assert sorted(UNMIRRORED.keys() - packages) == []
    assert sorted(UNMIRRORED.keys() & folders.keys()) == []
    assert sorted(TOPICS.keys() & packages) == []
