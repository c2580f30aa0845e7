"""What the pytest plugin collects, read once from the ini file and the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from verifier._internal.contract_files import SUFFIXES
from verifier.cases import cases_beside


@dataclass(frozen=True)
class CollectSettings:
    """Where contracts are collected and where their cases are.

    Attributes:
        collect_all: ``--verifier``: every contract under the paths pytest walks.
        roots: The ``verifier_paths`` directories (absolute).
        named: YAML files named on the command line itself (absolute).
        cases_by_path: Cases files configured for contract files.
        cases_by_id: Cases files configured for contract ids.
        shown_from: The directory paths in messages are relative to.
    """

    collect_all: bool
    roots: tuple[Path, ...]
    named: frozenset[Path]
    cases_by_path: dict[Path, Path] = field(default_factory=dict)
    cases_by_id: dict[str, Path] = field(default_factory=dict)
    shown_from: Path = Path()

    def collects(self, path: Path) -> bool:
        return (
            self.collect_all
            or path in self.named
            or any(path.is_relative_to(r) for r in self.roots)
        )

    def cases_for(self, path: Path, contract_id: str) -> tuple[Path, str]:
        """The cases file of a contract and where that was decided."""
        configured = self.cases_by_path.get(path) or self.cases_by_id.get(contract_id)
        if configured is not None:
            return configured, "verifier_cases"
        return cases_beside(path), "convention"


def settings_from(config: pytest.Config) -> CollectSettings:
    """The settings of a session; a malformed ``CONTRACT=CASES`` is a usage error."""
    invocation = config.invocation_params.dir
    ini_base = config.inipath.parent if config.inipath is not None else invocation
    by_path: dict[Path, Path] = {}
    by_id: dict[str, Path] = {}
    for entries, base, source in (
        (config.getini("verifier_cases"), ini_base, "verifier_cases"),
        (config.getoption("verifier_cases"), invocation, "--verifier-cases"),
    ):
        for entry in entries:
            _add_mapping(str(entry), base, source, by_path, by_id)
    named: set[Path] = set()
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        for arg in config.args:
            candidate = (invocation / arg.split("::", 1)[0]).resolve()
            if candidate.suffix in SUFFIXES:
                named.add(candidate)
    return CollectSettings(
        collect_all=bool(config.getoption("verifier_collect")),
        roots=tuple(Path(p).resolve() for p in config.getini("verifier_paths")),
        named=frozenset(named),
        cases_by_path=by_path,
        cases_by_id=by_id,
        shown_from=invocation,
    )


def _add_mapping(
    entry: str, base: Path, source: str, by_path: dict[Path, Path], by_id: dict[str, Path]
) -> None:
    contract, sep, cases = (part.strip() for part in entry.partition("="))
    if not sep or not contract or not cases:
        raise pytest.UsageError(f"{source}: {entry!r} is not CONTRACT=CASES")
    cases_path = (base / cases).resolve()
    as_path = (base / contract).resolve()
    if contract.endswith(SUFFIXES) or as_path.is_file():
        by_path[as_path] = cases_path
    else:
        by_id[contract] = cases_path
