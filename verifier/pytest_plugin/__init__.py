"""pytest plugin: each contract x case is a test item, checked by the real runner.

Registered as the ``verifier`` entry point of ``pytest11`` (disable with
``-p no:verifier``). A file is collected when it is YAML with a top-level
``contract:`` key and

- it lies under a path of the ``verifier_paths`` ini option, or
- it is itself named on the command line (``pytest contracts/x.yaml``), or
- ``--verifier`` is given (every contract under the paths pytest walks).

Nothing else is collected, so a project's own test run (its ``testpaths``) never
picks up contracts or deliberately broken contract fixtures by walking past them.

A contract's cases are ``NAME.cases.jsonl`` beside ``NAME.yaml``, unless the
``verifier_cases`` ini option or ``--verifier-cases`` maps the contract (its file or
its id) to a cases file: ``CONTRACT=CASES``. ``NAME.baseline.jsonl`` beside the
contract, when present, is joined by case id as ``verifier run --baseline`` does. A
contract without cases is skipped with the reason; an invalid one is a collection
error listing every problem as ``FILE:LINE:COL: message``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from verifier._internal.contract_files import SUFFIXES, is_contract
from verifier.pytest_plugin.messages import failure_message, item_name, safe_name, shown_path
from verifier.pytest_plugin.runs import PytestRuns, worker_store
from verifier.pytest_plugin.settings import CollectSettings, settings_from

if TYPE_CHECKING:
    from verifier.cases import CaseLine
    from verifier.contract.load import LoadedContract

# pytest finds the hooks by name; what a test suite may name itself is the exceptions.
__all__ = ["CaseFailed", "ContractWarning"]


class ContractWarning(UserWarning):
    """A contract problem that does not reject it (a deprecated judge model, ...)."""


class CaseFailed(Exception):
    """A case did not pass; the message lists the claims that failed and why."""


_SETTINGS = pytest.StashKey[CollectSettings]()
_RUNS = pytest.StashKey[PytestRuns]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("verifier", "verifier contracts as test items")
    group.addoption(
        "--verifier",
        action="store_true",
        dest="verifier_collect",
        help="Collect verifier contracts under every path pytest walks, not only "
        "under verifier_paths.",
    )
    group.addoption(
        "--verifier-cases",
        action="append",
        default=[],
        dest="verifier_cases",
        metavar="CONTRACT=CASES",
        help="Cases file of a contract (its file or its id); repeatable. "
        "Default: NAME.cases.jsonl beside NAME.yaml.",
    )
    group.addoption(
        "--verifier-store",
        dest="verifier_store",
        metavar="PATH",
        default=None,
        help="Gap-row store (SQLite file or postgresql:// URL); each xdist worker gets "
        "its own file, gaps.gwN.db. Default: a temporary SQLite file per session.",
    )
    group.addoption(
        "--verifier-judges",
        dest="verifier_judges",
        choices=("live", "replay", "record"),
        default=None,
        help="Judge mode as for `verifier run --judges`. "
        "Default: live when the judges' API key is set, else replay.",
    )
    parser.addini(
        "verifier_paths",
        "Paths under which YAML contracts are collected as test items.",
        type="paths",
        default=[],
    )
    parser.addini(
        "verifier_cases",
        "CONTRACT=CASES lines: the cases file of a contract (its file or its id), "
        "relative to the ini file.",
        type="linelist",
        default=[],
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "verifier: one case of a verifier contract")
    config.stash[_SETTINGS] = settings_from(config)
    invocation = config.invocation_params.dir
    store: str | None = config.getoption("verifier_store")
    if store is not None and "://" not in store:
        store = str((invocation / store).resolve())  # tests may change directory
    # xdist gives each worker's config its ``workerinput``; the environment variable
    # would also name the worker of an outer session running this one in-process.
    worker_input = getattr(config, "workerinput", None)
    worker = worker_input.get("workerid") if isinstance(worker_input, dict) else None
    config.stash[_RUNS] = PytestRuns(
        worker_store(store, worker) if store else None,
        judge_mode=config.getoption("verifier_judges"),
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in SUFFIXES:
        return None
    settings = parent.config.stash[_SETTINGS]
    if not settings.collects(file_path.resolve()) or not is_contract(file_path):
        return None
    file: ContractFile = ContractFile.from_parent(parent, path=file_path)
    return file


class ContractFile(pytest.File):
    """A contract file: loaded and linted once, then one item per case."""

    loaded: LoadedContract
    cases_path: Path

    def collect(self) -> list[pytest.Item]:
        from verifier.cases import read_cases
        from verifier.contract.load import check_contract
        from verifier.errors import VerifierError
        from verifier.run.baseline import join_baseline, read_baseline

        settings = self.config.stash[_SETTINGS]
        shown = shown_path(self.path, settings.shown_from)
        loaded, diagnostics = check_contract(self.path)
        if loaded is None:
            errors = [
                str(dataclasses.replace(d, file=shown))
                for d in diagnostics
                if d.severity == "error"
            ]
            count = f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
            raise self.CollectError("\n".join([*errors, f"{shown}: invalid contract ({count})"]))
        for warning in loaded.warnings:
            self.warn(ContractWarning(str(dataclasses.replace(warning, file=shown))))
        contract_id = loaded.contract.contract
        cases_path, source = settings.cases_for(self.path.resolve(), contract_id)
        if not cases_path.is_file():
            if source == "convention":
                return [
                    self._skipped(
                        contract_id,
                        f"contract {contract_id}: no cases file "
                        f"({shown_path(cases_path, settings.shown_from)} is missing; "
                        "name one with verifier_cases or --verifier-cases CONTRACT=CASES)",
                    )
                ]
            raise self.CollectError(
                f"{shown}: cases file {shown_path(cases_path, settings.shown_from)} "
                "(named by verifier_cases or --verifier-cases) not found"
            )
        self.loaded, self.cases_path = loaded, cases_path
        baseline = self.path.with_name(f"{self.path.stem}.baseline.jsonl")
        try:
            spec = loaded.contract.cases
            mapping = spec.mapping(dt.datetime.now(dt.UTC)) if spec is not None else None
            stream = read_cases(cases_path, mapping=mapping)
            if baseline.is_file():
                stream = join_baseline(stream, read_baseline(baseline))
            lines = list(stream)
        except VerifierError as exc:
            raise self.CollectError(str(exc)) from None
        if not lines:
            reason = f"contract {contract_id}: {cases_path.name} holds no cases"
            return [self._skipped(contract_id, reason)]
        items: list[pytest.Item] = []
        taken: set[str] = set()
        for line in lines:
            name = item_name(contract_id, line.case_id)
            if name in taken:  # two ids that differ only in characters made `_`
                name = f"{name[:-1]}-line{line.line}]"
            taken.add(name)
            items.append(ContractCase.from_parent(self, name=name, line=line))
        return items

    def _skipped(self, contract_id: str, reason: str) -> pytest.Item:
        """One skipped item named after the contract, so the skip shows where it is
        (the contract file) in the summary and in a JUnit report."""
        item: ContractSkipped = ContractSkipped.from_parent(self, name=safe_name(contract_id))
        item.add_marker("verifier")
        item.add_marker(pytest.mark.skip(reason=reason))
        return item


class ContractCase(pytest.Item):
    """One case of a contract: passes when the case passes the contract."""

    def __init__(self, *, line: CaseLine, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = line
        self.add_marker("verifier")

    def runtest(self) -> None:
        parent = self.parent
        assert isinstance(parent, ContractFile)
        runs = self.config.stash[_RUNS]
        from verifier.run.assembly import JudgesUnavailable

        try:
            result = runs.check(parent.loaded, parent.cases_path, self.line)
        except JudgesUnavailable as refused:
            # No case of the session can be checked as asked: one line, as the CLI's
            # exit 2, rather than the same failure on every item.
            pytest.exit(f"verifier: {refused}", returncode=pytest.ExitCode.USAGE_ERROR)
        if result.passed:
            return
        settings = self.config.stash[_SETTINGS]
        run_id = runs.run_id(parent.loaded)
        stored = (
            f"gap rows: run {run_id} in a temporary store (--verifier-store PATH keeps them)"
            if runs.temporary
            else f"gap rows: run {run_id} in {runs.location}"
        )
        raise CaseFailed(
            failure_message(
                loaded=parent.loaded,
                contract_shown=shown_path(self.path, settings.shown_from),
                cases_shown=shown_path(parent.cases_path, settings.shown_from),
                line=self.line,
                result=result,
                threshold=parent.loaded.contract.threshold,
                stored=stored,
            )
        )

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> Any:
        from verifier.errors import VerifierError

        if isinstance(excinfo.value, (CaseFailed, VerifierError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


class ContractSkipped(pytest.Item):
    """Stands for a contract whose cases are missing; always skipped, with the reason."""

    def runtest(self) -> None:
        """Never reached: the item carries a skip mark."""

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    runs = session.config.stash.get(_RUNS, None)
    if runs is not None:
        runs.close(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    runs = config.stash.get(_RUNS, None)
    if runs is None or not runs.run_ids:
        return
    terminalreporter.section("verifier")
    for note in runs.notes:
        terminalreporter.write_line(f"note: {note}")
    where = (
        "a temporary store, removed at exit (--verifier-store PATH keeps them)"
        if runs.temporary
        else runs.location
    )
    count = len(runs.run_ids)
    terminalreporter.write_line(
        f"{count} run{'s' if count != 1 else ''} stored in {where}: {', '.join(runs.run_ids)}"
    )
