"""``verifier audit --notify URL``: degradation alerts POSTed to a webhook on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._cli import cli
from tests.analyses._history import planted_store as history
from tests.analyses._webhook import Webhook, serving, unused_url
from verifier.analyses.history import audit_history
from verifier.analyses.notify import alert_payload, mask_url, notify_alerts
from verifier.gaps.sqlite.store import SqliteStore

STEADY = [0.90, 0.92, 0.88, 0.91, 0.90]
SECRET = "T0KEN-s3cret-0123456789"
HOOK = f"/hooks/{SECRET}?token={SECRET}"


@pytest.fixture
def degraded(tmp_path: Path) -> Path:
    return history(tmp_path / "gaps.db", *STEADY, 0.60)


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    with serving() as hook:
        yield hook


def test_the_alerts_are_posted_once_as_the_audit_s_json(degraded: Path, webhook: Webhook) -> None:
    url = webhook.base_url + HOOK
    # The audit first: remembering the alerts sent seals them, which moves the head on.
    audit = json.loads(
        cli("audit", "--store", str(degraded), "--window", "4w", "--format", "json").stdout
    )
    result = cli("audit", "--store", str(degraded), "--window", "4w", "--notify", url)
    assert result.exit_code == 0, result.output
    (request,) = webhook.requests
    assert request["path"] == HOOK
    body = request["body"]
    assert body["alerts"] == audit["alerts"] and len(body["alerts"]) == 1
    assert (body["store"], body["head"]) == (audit["store"], audit["head"])
    assert (body["window"], body["window_kind"], body["run_id"]) == ("4w", "time", None)
    assert body["text"].splitlines()[1].startswith("• demo/cites at run r6")
    assert result.stderr.strip() == f"alerts sent to {webhook.base_url}/…"
    assert SECRET not in result.output


def test_no_alert_sends_nothing(tmp_path: Path, webhook: Webhook) -> None:
    steady = history(tmp_path / "gaps.db", *STEADY, 0.90)
    env = {"VERIFIER_NOTIFY_URL": webhook.base_url + HOOK}
    result = cli("audit", "--store", str(steady), env=env)
    assert result.exit_code == 0 and webhook.requests == []
    assert result.stderr == ""


def test_the_url_may_come_from_the_environment_several_at_once(
    degraded: Path, webhook: Webhook
) -> None:
    env = {"VERIFIER_NOTIFY_URL": f"{webhook.base_url}/a {webhook.base_url}/b"}
    result = cli("audit", "--store", str(degraded), env=env)
    assert result.exit_code == 0, result.output
    assert [r["path"] for r in webhook.requests] == ["/a", "/b"]


def test_a_server_error_is_tried_again(degraded: Path, webhook: Webhook) -> None:
    webhook.script(500, 503)
    result = cli("audit", "--store", str(degraded), "--notify", webhook.base_url + HOOK)
    assert result.exit_code == 0, result.output
    assert len(webhook.requests) == 3
    assert webhook.requests[0]["body"] == webhook.requests[2]["body"]
    assert "alerts sent to" in result.stderr


def test_a_refusal_is_final_said_in_one_line_and_exits_2(degraded: Path, webhook: Webhook) -> None:
    webhook.script(404)
    result = cli("audit", "--store", str(degraded), "--notify", webhook.base_url + HOOK)
    assert result.exit_code == 2 and len(webhook.requests) == 1
    assert result.stderr == (
        f"the alerts could not be sent to {webhook.base_url}/…: answered HTTP 404\n"
    )
    assert "ALERT demo/cites at run r6" in result.stdout  # the alerts are still shown
    assert SECRET not in result.output


def test_an_unreachable_webhook_is_one_line_and_never_hides_the_audit(degraded: Path) -> None:
    url = unused_url(HOOK)
    result = cli("audit", "--store", str(degraded), "--notify", url)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert (
        line == f"the alerts could not be sent to {mask_url(url)}: could not connect (3 attempts)"
    )
    assert "ALERT demo/cites" in result.stdout and "Traceback" not in result.output
    strict = cli("audit", "--store", str(degraded), "--notify", url, "--fail-on-alert")
    assert strict.exit_code == 1  # the audit's own verdict outranks the delivery's
    assert SECRET not in result.output + strict.output


def test_a_webhook_that_does_not_answer_in_time_is_tried_again(
    degraded: Path, webhook: Webhook
) -> None:
    webhook.script(1.0, 1.0, 1.0)
    with SqliteStore(degraded) as store:
        audit = audit_history(store)
    (delivery,) = notify_alerts(audit, [webhook.base_url + HOOK], timeout=0.2, sleep=lambda s: None)
    assert (delivery.ok, delivery.attempts) == (False, 3)
    assert delivery.line() == (
        f"the alerts could not be sent to {webhook.base_url}/…: no answer within 0.2s (3 attempts)"
    )


def test_a_slack_webhook_gets_a_slack_message(degraded: Path) -> None:
    with SqliteStore(degraded) as store:
        audit = audit_history(store, window="4w")
    body = alert_payload(audit, f"https://hooks.slack.com/services/T0/B0/{SECRET}")
    assert list(body) == ["text"]
    first, alert = body["text"].splitlines()
    assert first == f"verifier audit of {degraded}: 1 degradation alert(s) (window 4 weeks)"
    assert alert == "• " + audit.alerts[0].describe()
    assert "store" in alert_payload(audit, "https://example.com/hook")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://hooks.slack.com/services/{SECRET}", "https://hooks.slack.com/…"),
        (f"https://user:{SECRET}@example.com:8443/?k={SECRET}", "https://example.com:8443/…"),
        ("http://127.0.0.1:9/", "http://127.0.0.1:9"),
    ],
)
def test_a_url_is_named_masked(url: str, shown: str) -> None:
    assert mask_url(url) == shown


@pytest.mark.parametrize("url", [f"ftp://example.com/{SECRET}", f"hooks.slack.com/{SECRET}"])
def test_a_url_that_is_not_http_is_refused_masked(degraded: Path, url: str) -> None:
    result = cli("audit", "--store", str(degraded), "--notify", url)
    assert result.exit_code == 2
    assert ": not an http:// or https:// URL" in result.stderr
    assert SECRET not in result.output and len(result.stderr.splitlines()) == 1
