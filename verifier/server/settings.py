"""What ``verifier serve`` is started with, checked before anything listens."""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from verifier.errors import VerifierError
from verifier.judge.config import JudgeChoice
from verifier.server.hosts import split_host

if TYPE_CHECKING:
    from verifier.judge.phase import JudgeMode

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_MAX_BODY: Final = 1 << 20
DEFAULT_READ_TIMEOUT: Final = 10.0
DEFAULT_MAX_RESULTS: Final = 100_000
DEFAULT_MAX_CASES: Final = 10_000
DEFAULT_MAX_ASSERTIONS: Final = 1_000
DEFAULT_KEPT_RUNS: Final = 256
DEFAULT_KEPT_BYTES: Final = 1 << 30
MIN_TOKEN_LENGTH: Final = 16
TOKEN_ENV: Final = "VERIFIER_SERVE_TOKEN"


class ServeError(VerifierError):
    """Settings the server refuses to start with; the message is one line."""


@dataclass(frozen=True)
class ServerSettings:
    """How the HTTP API serves.

    Attributes:
        host: Address to bind; anything but loopback needs ``token``.
        port: TCP port (0: any free port).
        token: Bearer token every request must carry (``None``: no check, loopback only).
        store: Gap-row store target, as ``verifier run --store`` takes it.
        contracts_dir: Directory whose contracts ``POST /v1/runs`` may name by path.
        judge: The judge of ``POST /v1/evaluate`` (``None``: that endpoint answers 503).
        judge_mode: ``live``, ``replay`` or ``record``; ``None`` chooses per request as
            ``verifier run`` does (live when the judge's API key is set).
        recordings: Recorded verdicts for ``POST /v1/evaluate``.
        max_body: Largest request body in bytes; larger ones get 413.
        max_runs: Runs in progress at once; more get 429.
        max_results: Results one ``POST /v1/runs`` may ask for (cases x claims, a
            judge claim counted once per sample); more get 413 before anything is written.
        max_cases: Cases one ``POST /v1/runs`` may carry; more get 413.
        max_assertions: Assertions one ``POST /v1/evaluate`` may carry; more get 413.
        kept_runs: Finished runs that stay retrievable (oldest dropped first).
        kept_bytes: Bytes of finished runs' reports kept on disk (oldest dropped first;
            the newest report is kept whatever its size).
        read_timeout: Seconds a connection has to deliver each whole request (head and
            body) once it is ready for one; then it is closed.
        allowed_hosts: ``Host`` values served besides loopback names and ``host``
            (``NAME`` any port, ``NAME:PORT`` that port only), for a proxy in front.
        frame_ancestors: Origins whose pages may frame the viewer's evaluation panel
            (``--frame-ancestor``; ``verifier.viewer.frame_ancestors``).
    """

    host: str = DEFAULT_HOST
    port: int = 8000
    token: str | None = field(default=None, repr=False)
    store: str = ".verifier/gaps.db"
    contracts_dir: Path | None = None
    judge: JudgeChoice | None = None
    judge_mode: JudgeMode | None = None
    recordings: Path | None = None
    max_body: int = DEFAULT_MAX_BODY
    max_runs: int = 4
    max_results: int = DEFAULT_MAX_RESULTS
    max_cases: int = DEFAULT_MAX_CASES
    max_assertions: int = DEFAULT_MAX_ASSERTIONS
    kept_runs: int = DEFAULT_KEPT_RUNS
    kept_bytes: int = DEFAULT_KEPT_BYTES
    read_timeout: float = DEFAULT_READ_TIMEOUT
    allowed_hosts: tuple[str, ...] = ()
    frame_ancestors: tuple[str, ...] = ()

    def check(self) -> None:
        """Refuses settings that would expose the API or cannot work.

        Raises:
            ServeError: The first problem, as one line.
        """
        if self.token is not None and len(self.token) < MIN_TOKEN_LENGTH:
            raise ServeError(f"the token must have at least {MIN_TOKEN_LENGTH} characters")
        if self.token is None and not is_loopback(self.host):
            raise ServeError(
                f"binding {self.host} exposes the API beyond this machine: "
                f"pass --token or set {TOKEN_ENV}"
            )
        limits = (self.max_body, self.max_runs, self.max_results, self.max_cases)
        kept = (self.max_assertions, self.kept_runs, self.kept_bytes)
        if min(*limits, *kept) < 1:
            raise ServeError("--max-* and --kept-* options must be at least 1")
        if not 0 < self.read_timeout < math.inf:
            raise ServeError("--read-timeout must be a positive number of seconds")
        for entry in self.allowed_hosts:
            if split_host(entry) is None:
                raise ServeError(
                    f"--allowed-host {entry!r}: not a host name or address with an "
                    "optional port (api.example.com, api.example.com:8443, [::1])"
                )
        if self.contracts_dir is not None and not self.contracts_dir.is_dir():
            raise ServeError(f"{self.contracts_dir}: contracts directory not found")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
