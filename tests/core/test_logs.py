from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog

from verifier import logs
from verifier.logs import (
    REDACTED,
    configure_logging,
    get_logger,
    is_secret_key,
    redact,
    redact_text,
)

ANTHROPIC_KEY = "sk-ant-api03-" + "Qx7vT2mN9pL4" * 7 + "-AbCdEfAA"
OPENAI_KEY = "sk-proj-" + "Zr8Wq3Jk" * 5
BEARER_TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
PLAIN_SECRET = "hunter2-correct-horse"
SECRETS = (ANTHROPIC_KEY, OPENAI_KEY, BEARER_TOKEN, PLAIN_SECRET)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    yield
    structlog.reset_defaults()
    for handler in [h for h in root.handlers if isinstance(h, logs._VerifierHandler)]:
        root.removeHandler(handler)
    root.setLevel(level)
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.NOTSET)


def json_lines(err: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in err.splitlines() if line.strip()]


def log_everything_secret() -> None:
    log = get_logger("verifier.judge")
    log.info(
        f"calling judge with {ANTHROPIC_KEY}",
        api_key=ANTHROPIC_KEY,
        headers={"x-api-key": PLAIN_SECRET, "Authorization": f"Bearer {BEARER_TOKEN}"},
        request={"messages": [{"role": "user", "content": f"the key is {OPENAI_KEY}"}]},
        max_tokens=1024,
    )
    try:
        raise RuntimeError(f"401 Unauthorized for key {ANTHROPIC_KEY}")
    except RuntimeError:
        log.exception("judge call failed", attempt=(1, f"Bearer {BEARER_TOKEN}"))
    logging.getLogger("anthropic._base_client").warning(
        "retrying with headers %s", {"x-api-key": PLAIN_SECRET, "authorization": "Bearer abc"}
    )


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text
    # Not even a recognisable piece of a key may get through.
    assert "Qx7vT2mN9pL4" not in text and "Zr8Wq3Jk" not in text


def test_json_format_writes_one_json_object_per_line_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json")
    get_logger("verifier.run").info("run started", cases=3)

    captured = capsys.readouterr()
    records = json_lines(captured.err)

    assert captured.out == ""
    assert len(records) == 1
    assert records[0]["event"] == "run started"
    assert records[0]["cases"] == 3
    assert records[0]["level"] == "info"
    assert records[0]["logger"] == "verifier.run"
    assert "timestamp" in records[0]


def test_no_secret_reaches_a_json_log_line(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("json")
    log_everything_secret()

    err = capsys.readouterr().err
    info, failure, foreign = json_lines(err)

    assert_no_secret(err)
    assert info["api_key"] == REDACTED
    assert info["headers"] == {"x-api-key": REDACTED, "Authorization": REDACTED}
    assert info["request"]["messages"][0]["content"] == f"the key is {REDACTED}"
    assert info["event"] == f"calling judge with {REDACTED}"
    assert info["max_tokens"] == 1024
    assert "RuntimeError: 401 Unauthorized for key [REDACTED]" in failure["exception"]
    assert failure["attempt"] == [1, f"Bearer {REDACTED}"]
    assert foreign["logger"] == "anthropic._base_client"
    assert REDACTED in foreign["event"]


def test_no_secret_reaches_a_console_log_line(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("console")
    log_everything_secret()

    err = capsys.readouterr().err

    assert_no_secret(err)
    assert "judge call failed" in err and REDACTED in err
    with pytest.raises(json.JSONDecodeError):
        json.loads(err.splitlines()[0])


def test_auto_format_is_json_when_ci_is_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    configure_logging("auto")
    get_logger("t").warning("hello")

    assert json_lines(capsys.readouterr().err)[0]["event"] == "hello"


def test_events_below_the_level_are_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("json", level="warning")
    log = get_logger("t")
    log.info("quiet")
    log.warning("loud")
    logging.getLogger("somelib").info("quiet too")

    assert [r["event"] for r in json_lines(capsys.readouterr().err)] == ["loud"]


def test_an_unknown_level_or_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="log level"):
        configure_logging("json", level="loud")
    with pytest.raises(ValueError, match="log format"):
        configure_logging("xml")  # type: ignore[arg-type]


def test_a_logger_made_before_configuration_follows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = get_logger("early")
    configure_logging("json")
    log.info("after", token=PLAIN_SECRET)

    record = json_lines(capsys.readouterr().err)[0]
    assert record["token"] == REDACTED
    assert record["logger"] == "early"


@pytest.mark.parametrize(
    "key",
    [
        "api_key",
        "apiKey",
        "APIKey",
        "X-Api-Key",
        "OPENAI_API_KEY",
        "Authorization",
        "access_token",
        "client_secret",
        "password",
        "Cookie",
        "private_key",
    ],
)
def test_credential_key_names_are_secret(key: str) -> None:
    assert is_secret_key(key)


@pytest.mark.parametrize(
    "key", ["max_tokens", "input_tokens", "author", "key", "monkey", "cases", "event"]
)
def test_ordinary_key_names_are_not_secret(key: str) -> None:
    assert not is_secret_key(key)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key={ANTHROPIC_KEY}!", f"key={REDACTED}!"),
        (f"use {OPENAI_KEY} now", f"use {REDACTED} now"),
        (f"Authorization: Bearer {BEARER_TOKEN}", f"Authorization: {REDACTED} {REDACTED}"),
        (f"bearer {BEARER_TOKEN}", f"bearer {REDACTED}"),
        ("GET /v1?api_key=abc123&page=2", f"GET /v1?api_key={REDACTED}&page=2"),
        ('{"x-api-key": "abc123"}', f'{{"x-api-key": "{REDACTED}"}}'),
        ("max_tokens=1024 and sk-short", "max_tokens=1024 and sk-short"),
    ],
)
def test_secret_shapes_in_text_are_masked_and_the_rest_kept(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_walks_nested_containers_and_objects() -> None:
    class Holder:
        def __repr__(self) -> str:
            return f"Holder({ANTHROPIC_KEY})"

    value = {"outer": [{"password": "x"}, (OPENAI_KEY,), {"ok": 1.5, "obj": Holder()}]}

    assert redact(value) == {
        "outer": [{"password": REDACTED}, [REDACTED], {"ok": 1.5, "obj": f"Holder({REDACTED})"}]
    }
