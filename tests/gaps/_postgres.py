"""A throwaway PostgreSQL server for tests and benchmarks: one cluster in a temp folder.

Used three ways, always through ``start_server``/``stop_server``, so CI and a local
``pytest`` start the server identically:

- ``.ci/run`` runs ``python -m tests.gaps._postgres start DIR`` (prints the URL) and
  ``... stop DIR`` at exit, and exports the URL as ``VERIFIER_TEST_POSTGRES_URL``;
- ``tests/gaps/conftest.py`` starts one for the session when that variable is unset;
- ``bench/store.py`` starts one when given no URL.

The server comes from Debian's ``postgresql`` package (``initdb`` and ``pg_ctl`` under
``/usr/lib/postgresql/VERSION/bin``, or on ``PATH``). ``initdb`` refuses to run as
root, so as root the cluster belongs to the ``postgres`` user (``runuser``). It
listens on 127.0.0.1 only, on a free port, with a random password (scram-sha-256), so
the URL tests use carries a password that must never show up in an error.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

URL_FILE = "url"
_USER = "verifier"
_DATABASE = "verifier_test"


class ServerUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (binaries missing, start failed)."""


def postgres_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, newest version first; ``None`` if absent."""
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return Path(initdb).resolve().parent
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return candidates[-1].parent if candidates else None


def start_server(directory: Path) -> str:
    """Creates a cluster under ``directory``, starts it and returns its URL.

    Raises:
        ServerUnavailable: PostgreSQL is not installed or the server did not start.
    """
    bindir = postgres_bin()
    if bindir is None:
        raise ServerUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
    directory.mkdir(parents=True, exist_ok=True)
    owner = _cluster_owner()
    password = secrets.token_hex(16)
    data = directory / "data"
    pwfile = directory / "pwfile"
    pwfile.write_text(password + "\n")
    if owner is not None:
        shutil.chown(directory, owner, owner)
        shutil.chown(pwfile, owner, owner)
    _run(
        owner,
        bindir / "initdb",
        "-D",
        str(data),
        "-U",
        _USER,
        f"--pwfile={pwfile}",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "--encoding=UTF8",
        "--locale=C",
    )
    pwfile.unlink()
    last_error = ""
    for _ in range(5):  # a free port can be taken between choosing it and binding it
        port = _free_port()
        options = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={directory}"
        try:
            _run(
                owner,
                bindir / "pg_ctl",
                "-D",
                str(data),
                "-l",
                str(directory / "server.log"),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            )
        except ServerUnavailable as exc:
            last_error = str(exc)
            continue
        url = f"postgresql://{_USER}:{password}@127.0.0.1:{port}/postgres"
        _create_database(url)
        url = url.rsplit("/", 1)[0] + f"/{_DATABASE}"
        (directory / URL_FILE).write_text(url + "\n")
        return url
    raise ServerUnavailable(f"PostgreSQL did not start: {last_error}")


def stop_server(directory: Path) -> None:
    """Stops the server of a cluster ``start_server`` made (if it runs); never raises."""
    bindir = postgres_bin()
    data = directory / "data"
    if bindir is None or not (data / "postmaster.pid").exists():
        return
    with contextlib.suppress(ServerUnavailable):
        _run(_cluster_owner(), bindir / "pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop")


def _cluster_owner() -> str | None:
    """Who runs the cluster: ``None`` for the current user, unless that is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise ServerUnavailable("running as root and no 'postgres' user to own the cluster")


def _run(owner: str | None, program: Path, *args: str) -> None:
    command = [str(program), *args]
    if owner is not None:
        command = ["runuser", "-u", owner, "--", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerUnavailable(f"{program.name}: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise ServerUnavailable(f"{program.name} failed: {detail[-1] if detail else '?'}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _create_database(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {_DATABASE}")


def main(argv: list[str]) -> int:
    """``start DIR`` prints the URL of a new server; ``stop DIR`` stops it."""
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.gaps._postgres start|stop DIR", file=sys.stderr)
        return 2
    directory = Path(argv[1])
    if argv[0] == "stop":
        stop_server(directory)
        return 0
    try:
        print(start_server(directory))
    except ServerUnavailable as exc:
        print(f"cannot start PostgreSQL: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
