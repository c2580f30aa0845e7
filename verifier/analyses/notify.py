"""Degradation alerts sent to webhooks (``verifier audit --notify URL``).

An audit that found alerts POSTs them to each URL, in one request: to a Slack
incoming webhook (host ``hooks.slack.com``) a Slack message, ``{"text": ...}``, one line
per alert; to any other URL the alerts as ``verifier audit --format json`` gives them
(each with its identity, ``alert_id``), with the store, its head, the run audited and
the window, and the same ``text``. An audit without alerts sends nothing. Nothing of a case
is sent: an alert names its contract, claim and run and carries pass rates.

Given the store's alerts sent (``verifier.gaps.alert_deliveries``), each URL is sent
only the alerts not delivered to it yet (``verifier.analyses.alert_memory``), and what
became of each is recorded, sealed: a repeated audit posts each alert once, and an
alert whose delivery failed is posted again by the next audit.

A request that times out, cannot connect or is answered 5xx (or 429) is tried again,
up to ``ATTEMPTS`` times with a short pause; any other answer but 2xx is final. What
could not be delivered is returned, not raised: the alerts were found either way, and
the caller says so. A webhook URL usually carries its secret in its path or query, so
it is only ever named masked (``mask_url``), and no HTTP error's own text (which may
quote the URL) is repeated.
"""

from __future__ import annotations

import datetime as dt
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import httpx2

from verifier._internal.canonical import canonical_json
from verifier.analyses.alert_memory import (
    alert_document,
    alert_id,
    alert_identity,
    destination_sha256,
)
from verifier.gaps.alert_deliveries import DELIVERED, AlertDelivery, AlertDeliveryStore

if TYPE_CHECKING:
    from verifier.analyses.history import HistoryAudit
    from verifier.analyses.trends import DegradationAlert

__all__ = [
    "ATTEMPTS",
    "TIMEOUT_SECONDS",
    "Delivery",
    "alert_payload",
    "check_notify_url",
    "mask_url",
    "notify_alerts",
]

ATTEMPTS = 3
TIMEOUT_SECONDS = 10.0
_PAUSES = (0.5, 2.0)
_SLACK_HOST = "hooks.slack.com"


@dataclass(frozen=True, slots=True)
class Delivery:
    """What became of the alerts sent to one URL.

    Attributes:
        url: The URL, masked (``mask_url``).
        attempts: The requests made (0: every alert had been delivered there before).
        problem: Why the alerts were not delivered (None when they were).
        before: The audit's alerts not sent, delivered to the URL by an earlier audit.
    """

    url: str
    attempts: int
    problem: str | None = None
    before: int = 0

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """One line saying what became of the alerts, the URL masked."""
        earlier = f" ({self.before} sent before, not again)" if self.before else ""
        if self.attempts == 0:
            return f"no new alert for {self.url}: {self.before} sent before, not again"
        if self.problem is None:
            return f"alerts sent to {self.url}{earlier}"
        tries = f" ({self.attempts} attempts)" if self.attempts > 1 else ""
        return f"the alerts could not be sent to {self.url}: {self.problem}{tries}{earlier}"


def mask_url(url: str) -> str:
    """The URL with its user, path and query hidden: ``https://hooks.slack.com/…``."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(a URL that cannot be read)"
    if not parts.scheme or not parts.hostname:
        return "(a URL without a scheme and host)"
    hidden = "/…" if parts.path not in ("", "/") or parts.query or parts.fragment else ""
    return f"{parts.scheme}://{host}{port}{hidden}"


def check_notify_url(url: str) -> None:
    """Raises ValueError (naming the URL masked) unless ``url`` is an http(s) URL with a host."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"--notify {mask_url(url)}: not an http:// or https:// URL")


def alert_payload(
    audit: HistoryAudit, url: str, alerts: Sequence[DegradationAlert] | None = None
) -> dict[str, Any]:
    """The body sent to ``url`` of ``alerts`` (default: every alert of the audit): a
    Slack message to a Slack webhook, else the alerts' JSON (each with its identity),
    the store, head, run and window, and the message as ``text``."""
    alerts = audit.alerts if alerts is None else alerts
    text = _text(audit, alerts)
    if urllib.parse.urlsplit(url).hostname == _SLACK_HOST:
        return {"text": text}
    report = audit.as_dict()
    kept = ("store", "head", "run_id", "window", "window_kind", "window_seconds")
    return {
        **{key: report[key] for key in kept if key in report},
        "alerts": [alert_document(alert) for alert in alerts],
        "text": text,
    }


def notify_alerts(
    audit: HistoryAudit,
    urls: Sequence[str],
    *,
    sent: AlertDeliveryStore | None = None,
    timeout: float = TIMEOUT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Delivery]:
    """POSTs the audit's alerts to each URL (nothing when it has none).

    Args:
        audit: The audit whose alerts are sent.
        urls: The webhooks.
        sent: The store's alerts sent: each URL gets only the alerts not delivered
            to it yet, and each delivery is recorded there (``None``: every alert is
            sent, nothing is recorded).
        timeout: Seconds to wait for each answer.
        sleep: Waits between attempts.

    Returns:
        One ``Delivery`` per URL, in order (empty when there were no alerts).

    Raises:
        AlertDeliveryStoreError: A delivery could not be recorded.
    """
    if not audit.alerts:
        return []
    with httpx2.Client(timeout=timeout, follow_redirects=False) as client:
        found = []
        for url in urls:
            done = sent.delivered(destination_sha256(url)) if sent is not None else set()
            pending = [alert for alert in audit.alerts if alert_id(alert) not in done]
            before = len(audit.alerts) - len(pending)
            if not pending:
                found.append(Delivery(mask_url(url), 0, before=before))
                continue
            body = alert_payload(audit, url, pending)
            delivery = replace(_deliver(client, url, body, timeout, sleep), before=before)
            if sent is not None:
                sent.record(_records(pending, url, delivery))
            found.append(delivery)
        return found


def _records(
    alerts: Sequence[DegradationAlert], url: str, delivery: Delivery
) -> list[AlertDelivery]:
    """What the alerts sent keep of one delivery: a row per alert."""
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    outcome = DELIVERED if delivery.problem is None else f"failed: {delivery.problem}"
    return [
        AlertDelivery(
            alert_id(alert),
            destination_sha256(url),
            delivery.url,
            now,
            outcome,
            delivery.attempts,
            canonical_json(alert_identity(alert)).decode(),
        )
        for alert in alerts
    ]


def _deliver(
    client: httpx2.Client,
    url: str,
    body: dict[str, Any],
    timeout: float,
    sleep: Callable[[float], None],
) -> Delivery:
    problem: str | None = "not tried"
    for attempt in range(1, ATTEMPTS + 1):
        if attempt > 1:
            sleep(_PAUSES[min(attempt - 2, len(_PAUSES) - 1)])
        retry, problem = _post(client, url, body, timeout)
        if problem is None:
            return Delivery(mask_url(url), attempt)
        if not retry:
            return Delivery(mask_url(url), attempt, problem)
    return Delivery(mask_url(url), ATTEMPTS, problem)


def _post(
    client: httpx2.Client, url: str, body: dict[str, Any], timeout: float
) -> tuple[bool, str | None]:
    """One POST: (whether a failure is worth another try, the failure or None)."""
    try:
        response = client.post(url, json=body)
    except httpx2.TimeoutException:
        return True, f"no answer within {timeout:g}s"
    except httpx2.ConnectError:
        return True, "could not connect"
    except httpx2.TransportError as exc:
        # The class names the failure; its text may quote the URL, so it is not shown.
        return True, f"the connection failed ({type(exc).__name__})"
    status = response.status_code
    if 200 <= status < 300:
        return False, None
    return status >= 500 or status == 429, f"answered HTTP {status}"


def _text(audit: HistoryAudit, alerts: Sequence[DegradationAlert]) -> str:
    location = audit.integrity.location
    scope = f"run {audit.run_id} of " if audit.run_id else ""
    lines = [
        f"verifier audit of {scope}{location}: {len(alerts)} degradation alert(s) "
        f"(window {audit.window.describe()})"
    ]
    lines += [f"• {alert.describe()}" for alert in alerts]
    return "\n".join(lines)
