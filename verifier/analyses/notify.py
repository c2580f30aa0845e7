"""Degradation alerts sent to webhooks (``verifier audit --notify URL``).

An audit that found alerts POSTs them once to each URL, in one request: to a Slack
incoming webhook (host ``hooks.slack.com``) a Slack message, ``{"text": ...}``, one line
per alert; to any other URL the alerts as ``verifier audit --format json`` gives them,
with the store, its head, the run audited and the window, and the same ``text``. An
audit without alerts sends nothing. Nothing of a case is sent: an alert names its
contract, claim and run and carries pass rates.

A request that times out, cannot connect or is answered 5xx (or 429) is tried again,
up to ``ATTEMPTS`` times with a short pause; any other answer but 2xx is final. What
could not be delivered is returned, not raised: the alerts were found either way, and
the caller says so. A webhook URL usually carries its secret in its path or query, so
it is only ever named masked (``mask_url``), and no HTTP error's own text (which may
quote the URL) is repeated.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx2

if TYPE_CHECKING:
    from verifier.analyses.history import HistoryAudit

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
        attempts: The requests made.
        problem: Why the alerts were not delivered (None when they were).
    """

    url: str
    attempts: int
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """One line saying what became of the alerts, the URL masked."""
        if self.problem is None:
            return f"alerts sent to {self.url}"
        tries = f" ({self.attempts} attempts)" if self.attempts > 1 else ""
        return f"the alerts could not be sent to {self.url}: {self.problem}{tries}"


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


def alert_payload(audit: HistoryAudit, url: str) -> dict[str, Any]:
    """The body sent to ``url``: a Slack message to a Slack webhook, else the alerts'
    JSON with the store, head, run and window, and the message as ``text``."""
    text = _text(audit)
    if urllib.parse.urlsplit(url).hostname == _SLACK_HOST:
        return {"text": text}
    report = audit.as_dict()
    kept = ("store", "head", "run_id", "window", "window_kind", "window_seconds", "alerts")
    return {**{key: report[key] for key in kept if key in report}, "text": text}


def notify_alerts(
    audit: HistoryAudit,
    urls: Sequence[str],
    *,
    timeout: float = TIMEOUT_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Delivery]:
    """POSTs the audit's alerts to each URL (nothing when it has none).

    Returns:
        One ``Delivery`` per URL, in order (empty when there were no alerts).
    """
    if not audit.alerts:
        return []
    with httpx2.Client(timeout=timeout, follow_redirects=False) as client:
        return [_deliver(client, url, alert_payload(audit, url), timeout, sleep) for url in urls]


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


def _text(audit: HistoryAudit) -> str:
    location = audit.integrity.location
    scope = f"run {audit.run_id} of " if audit.run_id else ""
    lines = [
        f"verifier audit of {scope}{location}: {len(audit.alerts)} degradation alert(s) "
        f"(window {audit.window.describe()})"
    ]
    lines += [f"• {alert.describe()}" for alert in audit.alerts]
    return "\n".join(lines)
