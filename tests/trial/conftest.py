"""The Messages API stand-in answering per model, and a store of one live run (a
SQLite file, or either backend for the switch)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.gaps._backends import Backend
from tests.gaps.conftest import postgres_server, postgres_url, store_backend  # noqa: F401 (fixtures)
from tests.judge.messages_server import MessagesServer
from tests.trial._support import BINARY_CONTRACT, KEY, OLD_MODEL, per_model, write_contract
from verifier.run.api import run_contract
from verifier.run.assembly import Judges


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    with MessagesServer(default=per_model) as running:
        yield running


@pytest.fixture
def store(tmp_path: Path, server: MessagesServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store of one live run of the contract, its judge answered by the brain; the
    server's record of calls is emptied after it."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    contract, cases = write_contract(tmp_path)
    target = str(tmp_path / "gaps.db")
    judges = Judges(mode="live", base_url=server.base_url, recordings_beside_contract=False)
    run_contract(contract, cases, store=target, judges=judges)
    assert {r.body["model"] for r in server.model_calls()} == {OLD_MODEL}
    server.requests.clear()
    return target


@dataclass(frozen=True)
class Switching:
    """A store (SQLite or PostgreSQL) of one live run of the binary contract, and how
    to run the contract again against the same stand-in."""

    backend: Backend
    contract: Path
    cases: Path
    server: MessagesServer

    @property
    def target(self) -> str:
        return self.backend.target

    def run(self) -> None:
        judges = Judges(
            mode="live", base_url=self.server.base_url, recordings_beside_contract=False
        )
        run_contract(self.contract, self.cases, store=self.target, judges=judges)


@pytest.fixture
def switching(
    tmp_path: Path,
    server: MessagesServer,
    monkeypatch: pytest.MonkeyPatch,
    store_backend: Backend,  # noqa: F811 (the fixture imported above)
) -> Switching:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    contract, cases = write_contract(tmp_path, BINARY_CONTRACT)
    switching = Switching(store_backend, contract, cases, server)
    switching.run()
    server.requests.clear()
    return switching
