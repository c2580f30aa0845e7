"""Running the ``verifier`` command in tests, the one way every test does it.

- ``cli(*args)``: click's runner in this process; the result's stdout and stderr apart.
- ``verifier_process(*args, cwd=...)``: ``python -m verifier`` in a process of its own.
- ``verifier(*args, cwd=...)``: a ``subprocess.CompletedProcess`` either way: in this
  process where that is the same, in a process of its own where it is not.

None of them lets the command see the variables of CLEARED: under CI, GitHub Actions'
variables would add annotations and summaries, and a store named by the environment
would take the place of the test's own.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from click.testing import Result

CLEARED = ("CI", "VERIFIER_STORE", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE")
"""Variables no command under test sees: GitHub Actions would add annotations and summaries."""

SUBPROCESS_COMMANDS = frozenset({"serve"})
"""Commands ``verifier`` runs in a process of their own: a server binds ports and handles
signals. The others run in this process, where a new interpreter per call would add
nothing but its start-up. A test that needs a process of its own (signals, writes to file
descriptor 1) says so with ``own_process=True``; VERIFIER_TESTS_SUBPROCESS=1 runs every
command in one."""

NO_STORE: Mapping[str, str | None] = {"VERIFIER_STORE": None, "CI": None}
"""What ``cli`` removes from the environment: the store it names, and CI's log format."""


def cli(
    *args: str, env: Mapping[str, str | None] | None = None, input: str | bytes | None = None
) -> Result:
    """``verifier ARGS`` run by click in this process, ``input`` on its standard input.

    The environment is this one without VERIFIER_STORE and CI, with ``env`` added (a
    value of None removes that variable). An exception other than the command's exit
    fails the test, with its traceback.
    """
    from click.testing import CliRunner

    from verifier.cli import main

    result = CliRunner().invoke(main, list(args), env={**NO_STORE, **(env or {})}, input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def verifier_process(
    *args: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    clear_prefixes: tuple[str, ...] = (),
    input: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m verifier ARGS`` run to its end in a process of its own, in ``cwd``.

    The process gets this environment without the variables in CLEARED and those
    starting with one of ``clear_prefixes``, with ``env`` added; ``input`` on its
    standard input; its stdout and stderr are read apart, as text.
    """
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        cwd=cwd,
        env={**_cleared_environ(clear_prefixes), **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def verifier(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    clear_prefixes: tuple[str, ...] = (),
    own_process: bool = False,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``verifier ARGS`` in ``cwd`` with ``env`` added, the variables in CLEARED and those
    starting with one of ``clear_prefixes`` removed."""
    command = next((a for a in args if not a.startswith("-")), "")
    # asyncio.run cannot start inside a running loop (Playwright's sync API keeps one).
    in_process = not own_process and command not in SUBPROCESS_COMMANDS and not _loop_running()
    if in_process and not os.environ.get("VERIFIER_TESTS_SUBPROCESS"):
        cleared = dict.fromkeys(k for k in os.environ if _is_cleared(k, clear_prefixes))
        return _in_process(args, cwd=cwd, env={**cleared, **(env or {})})
    return verifier_process(*args, cwd=cwd, env=env, clear_prefixes=clear_prefixes, timeout=timeout)


def run_written(
    folder: Path, contract: str, cases: list[Any], *, store: str = "gaps.db"
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``verifier run`` of ``contract`` (its YAML) over ``cases`` (written as JSONL) in
    ``folder``; the process and its JSON report."""
    (folder / "c.yaml").write_text(contract, encoding="utf-8")
    (folder / "cases.jsonl").write_text(
        "".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8"
    )
    result = verifier(
        "run", "c.yaml", "--cases", "cases.jsonl", "--store", store, "--format", "json",
        "--out", "report.json", cwd=folder,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return result, json.loads((folder / "report.json").read_text(encoding="utf-8"))


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    """Neither output of the command holds a Python traceback."""
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout


def _is_cleared(name: str, prefixes: tuple[str, ...]) -> bool:
    return name in CLEARED or bool(prefixes and name.startswith(prefixes))


def _cleared_environ(prefixes: tuple[str, ...]) -> dict[str, str]:
    """This process's environment without CLEARED and the variables starting with ``prefixes``."""
    return {k: v for k, v in os.environ.items() if not _is_cleared(k, prefixes)}


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _in_process(
    args: tuple[str, ...], *, cwd: Path, env: dict[str, str | None]
) -> subprocess.CompletedProcess[str]:
    """``verifier ARGS`` run by click in this process, as the console script runs it."""
    import traceback

    import structlog
    from click.testing import CliRunner

    from verifier.cli import main

    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=True)
    finally:
        os.chdir(before)
        # The command configures logging for its process; the next test starts afresh.
        structlog.reset_defaults()
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What the interpreter would print: a test asserting no traceback sees it.
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["verifier", *args], result.exit_code, result.stdout, stderr)
