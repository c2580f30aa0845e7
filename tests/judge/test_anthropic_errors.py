"""Anthropic provider failures: retries, waits, timeouts, bad bodies (the SDK's rules, which
``test_messages_parity.py`` checks against the SDK itself)."""

from __future__ import annotations

import time

import pytest

from tests.judge._support import (
    API_KEY,
    VERDICT,
    clean_provider_env,
    complete,
    complete_error,
    judge_request,
    run,
    serve,
)
from tests.judge.behaviours import (
    delayed,
    http_error,
    malformed,
    overloaded,
    rate_limited,
    server_error,
    tool_use,
)
from tests.judge.messages_server import MessagesServer

server = pytest.fixture(serve, name="server")
provider_env = pytest.fixture(clean_provider_env, autouse=True, name="provider_env")

FAST_RETRY = {"retry-after-ms": "10"}


def test_429_retry_after_is_honoured(server: MessagesServer) -> None:
    server.script(rate_limited(retry_after=1))

    started = time.perf_counter()
    reply = run(complete(server))

    assert time.perf_counter() - started >= 1.0
    assert reply.tool_input is not None
    retries = [call.headers["x-stainless-retry-count"] for call in server.model_calls()]
    assert retries == ["0", "1"]


def test_retry_after_ms_wins_over_retry_after(server: MessagesServer) -> None:
    server.script(rate_limited(retry_after=30, retry_after_ms=300))

    started = time.perf_counter()
    run(complete(server))

    assert 0.3 <= time.perf_counter() - started < 20  # far from the 30 s of retry-after
    assert len(server.model_calls()) == 2


def test_500_then_529_then_success(server: MessagesServer) -> None:
    server.script(server_error(headers=FAST_RETRY), overloaded(headers=FAST_RETRY))

    reply = run(complete(server, max_retries=2))

    assert reply.tool_input == {"pass": True, "reason": "ok"}
    assert len(server.model_calls()) == 3


def test_overloaded_after_retries_is_retryable_with_its_wait(server: MessagesServer) -> None:
    server.script(*[overloaded(headers={"retry-after-ms": "20"})] * 2)

    error = complete_error(server, max_retries=1)

    assert error.retryable and error.status == 529
    assert error.retry_after == pytest.approx(0.02)
    assert "overloaded_error" in error.message


def test_429_without_retries_reports_retry_after(server: MessagesServer) -> None:
    server.script(rate_limited(retry_after=7))

    error = complete_error(server, max_retries=0)

    assert (error.retryable, error.status, error.retry_after) == (True, 429, 7.0)
    assert len(server.model_calls()) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_not_retryable(server: MessagesServer, status: int) -> None:
    server.script(http_error(status, f"bad request\nwith key {API_KEY}"))

    error = complete_error(server)

    assert not error.retryable and error.status == status
    assert "***" in error.message
    assert len(server.model_calls()) == 1


def test_should_retry_header_overrides_status(server: MessagesServer) -> None:
    server.script(server_error(headers={"x-should-retry": "false"}))

    error = complete_error(server)

    assert not error.retryable and error.status == 500
    assert len(server.model_calls()) == 1


def test_timeout_is_a_retryablecomplete_error(server: MessagesServer) -> None:
    server.script(delayed(60, tool_use(VERDICT)))

    started = time.perf_counter()
    error = complete_error(server, timeout=0.2, max_retries=0)

    assert time.perf_counter() - started < 30  # cut off, not waited out
    assert error.retryable and error.status is None
    assert "timed out after 0.2s" in error.message


def test_malformed_json_is_a_retryablecomplete_error(server: MessagesServer) -> None:
    # The SDK raises JSONDecodeError (and does not retry it): there is no Message to
    # map, so it cannot be a reply; the scheduler may try again, then record an error.
    server.script(malformed())

    error = complete_error(server)

    assert error.retryable and error.status is None
    assert "malformed JSON" in error.message


def test_missing_api_key_is_a_clear_error(
    server: MessagesServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")

    error = complete_error(server)

    assert error.message == "anthropic: ANTHROPIC_API_KEY is not set"
    assert not error.retryable
    assert server.requests == []


def test_sampling_the_api_lacks_is_refused_before_any_call(server: MessagesServer) -> None:
    request = judge_request(sampling={"max_tokens": 64, "temperature": 0})

    error = complete_error(server, request=request)

    assert not error.retryable and "temperature" in error.message
    assert server.requests == []
