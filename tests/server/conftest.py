"""Fixtures of the HTTP API tests: the local Messages API and the judge's environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# The PostgreSQL server and a fresh schema per test, as the store tests have them.
from tests.gaps.conftest import postgres_server, postgres_url  # noqa: F401
from tests.judge.judge_brain import brain
from tests.judge.messages_server import MessagesServer
from tests.report._chromium import chromium  # noqa: F401 (fixture of the playground's tests)
from tests.server._support import KEY


@pytest.fixture
def judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake key and no other judge or store settings from the environment."""
    import os

    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "OPENAI_", "VERIFIER_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


@pytest.fixture
def messages(judge_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[MessagesServer]:
    """The local Messages API, where the anthropic provider sends its calls."""
    with MessagesServer(default=brain) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        yield server
