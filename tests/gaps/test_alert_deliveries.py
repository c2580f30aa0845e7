"""The alerts sent, remembered in the store: a repeated ``audit --notify`` posts each
alert once, a failed delivery is posted again, and the table is sealed; to a real
webhook on 127.0.0.1, on both backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests._cli import cli
from tests.analyses._history import day, judge_evidence, plant_history, plant_run
from tests.analyses._webhook import Webhook, serving
from tests.gaps._backends import Backend

STEADY = [0.90, 0.92, 0.88, 0.91, 0.90]
SECRET = "T0KEN-s3cret-0123456789"
HOOK = f"/services/{SECRET}?token={SECRET}"


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    with serving() as hook:
        yield hook


@pytest.fixture
def degraded(store_backend: Backend) -> Backend:
    """Runs r1-r5 steady, r6 a drop of ``cites``: one alert over a 4-week window."""
    with store_backend.open() as store:
        plant_history(store, *STEADY, 0.60)
    return store_backend


def notify(backend: Backend, url: str, *args: str) -> Any:
    return cli("audit", "--store", backend.target, "--window", "4w", "--notify", url, *args)


def rows(backend: Backend) -> list[tuple[Any, ...]]:
    return backend.query(
        "SELECT alert_id, destination_sha256, destination, outcome, attempts, alert"
        " FROM alert_deliveries ORDER BY id"
    )


def test_an_alert_over_four_weeks_is_posted_once_across_audits(
    degraded: Backend, webhook: Webhook
) -> None:
    url = webhook.base_url + HOOK
    first = notify(degraded, url)
    assert first.exit_code == 0, first.output
    assert first.stderr.strip() == f"alerts sent to {webhook.base_url}/…"
    (request,) = webhook.requests
    body = request["body"]
    assert [a["run_id"] for a in body["alerts"]] == ["r6"] and body["window"] == "4w"

    second = notify(degraded, url)
    assert second.exit_code == 0, second.output
    assert len(webhook.requests) == 1  # nothing posted again
    assert second.stderr.strip() == (
        f"no new alert for {webhook.base_url}/…: 1 sent before, not again"
    )
    assert "ALERT demo/cites at run r6" in second.stdout  # the audit still shows it

    ((alert_id, destination_sha, destination, outcome, attempts, alert),) = rows(degraded)
    assert [a["alert_id"] for a in body["alerts"]] == [alert_id] and len(alert_id) == 64
    assert (destination, outcome, attempts) == (f"{webhook.base_url}/…", "delivered", 1)
    assert json.loads(alert)["prior_runs"] == ["r1", "r2", "r3", "r4", "r5"]
    # The payload and the store keep no secret and nothing of a case.
    sent = json.dumps([r["body"] for r in webhook.requests])
    assert SECRET not in sent and "case-" not in sent
    stored = json.dumps([list(r) for r in degraded.query("SELECT * FROM alert_deliveries")])
    assert SECRET not in stored and "case-" not in stored and len(destination_sha) == 64

    # A new drop is a new alert: only it is posted; another URL gets every alert.
    with degraded.open() as store:
        plant_run(
            store, "r7", started_at=day(7), passes={"cites": (50, 100), "tone": (2, 2)},
            evidence={"tone": judge_evidence(model_id="claude-haiku-4-5-20260301")},
        )  # fmt: skip
    third = notify(degraded, url)
    assert third.exit_code == 0, third.output
    assert [a["run_id"] for a in webhook.requests[-1]["body"]["alerts"]] == ["r7"]
    assert "(1 sent before, not again)" in third.stderr
    other = notify(degraded, webhook.base_url + "/other")
    assert other.exit_code == 0, other.output
    assert [a["run_id"] for a in webhook.requests[-1]["body"]["alerts"]] == ["r6", "r7"]
    assert len(webhook.requests) == 3

    audited = cli("audit", "--store", degraded.target)
    assert audited.exit_code == 0, audited.output


def test_a_failed_delivery_is_not_remembered_and_the_next_audit_posts_it(
    degraded: Backend, webhook: Webhook
) -> None:
    url = webhook.base_url + HOOK
    webhook.script(500, 500, 500)
    first = notify(degraded, url)
    assert first.exit_code == 2
    assert first.stderr.strip() == (
        f"the alerts could not be sent to {webhook.base_url}/…: answered HTTP 500 (3 attempts)"
    )
    assert [r[3:5] for r in rows(degraded)] == [("failed: answered HTTP 500", 3)]

    second = notify(degraded, url)
    assert second.exit_code == 0, second.output
    assert len(webhook.requests) == 4
    assert webhook.requests[3]["body"]["alerts"] == webhook.requests[0]["body"]["alerts"]
    assert [r[3] for r in rows(degraded)] == ["failed: answered HTTP 500", "delivered"]

    third = notify(degraded, url)
    assert third.exit_code == 0 and len(webhook.requests) == 4


def test_an_edited_delivery_fails_the_audit_and_is_not_credited(
    degraded: Backend, webhook: Webhook
) -> None:
    url = webhook.base_url + HOOK
    webhook.script(404)
    assert notify(degraded, url).exit_code == 2
    # Someone marks the refused delivery as delivered, to silence the alert.
    degraded.tamper("UPDATE alert_deliveries SET outcome = 'delivered', attempts = 1")
    audited = cli("audit", "--store", degraded.target, "--format", "json")
    assert audited.exit_code == 1
    problems = [p["message"] for p in json.loads(audited.stdout)["problems"]]
    assert any(
        m.startswith("alert_deliveries: 1 row(s) no seal vouches for (e.g. delivery of alert ")
        and f"to {webhook.base_url}/… at " in m
        and "(delivered)" in m
        for m in problems
    ), problems
    again = notify(degraded, url)  # the forged row is not credited: the alert is posted
    assert len(webhook.requests) == 2 and "alerts sent to" in again.stderr
