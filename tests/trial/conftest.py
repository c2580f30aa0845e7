"""The Messages API stand-in answering per model, and a store of one live run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.judge.messages_server import MessagesServer
from tests.trial._support import KEY, OLD_MODEL, per_model, write_contract
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
