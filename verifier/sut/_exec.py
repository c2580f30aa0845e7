"""A command as the system under test: the input on stdin, the output on stdout.

The command is started without a shell, in its own process group, so a timeout kills
it and whatever it started. It inherits the caller's environment (or, with
``pass_env``, only the variables it names) plus the spec's ``env`` (where ``${NAME}``
is the caller's NAME); values of variables named like keys,
tokens or passwords never reach rows or logs: they are masked in every stderr tail
and message, and the evidence names the added variables, never their values.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import orjson

from verifier.contract.sut_models import ExecSut
from verifier.errors import SutError
from verifier.files import FileRefused, FileScope, scope_of
from verifier.sut._reaper import MARKER, new_token, sweep, tracks_escapes
from verifier.sut._types import Produced, SecretMask, one_line_tail

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def stdin_bytes(value: Any) -> bytes:
    """Text goes as it is (UTF-8); anything else as JSON."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def expand_env(env: dict[str, str], environ: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """``env`` with each ``${NAME}`` replaced by the caller's value, and the values so
    taken (secrets, by assumption). An unset NAME is a ``SutError``."""
    taken: list[str] = []

    def take(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise SutError(f"sut exec env: {name} is not set in the environment")
        taken.append(environ[name])
        return environ[name]

    return {key: _VARIABLE.sub(take, value) for key, value in env.items()}, taken


def inherited_env(environ: dict[str, str], passed: tuple[str, ...] | None) -> dict[str, str]:
    """What a command inherits: all of ``environ``, or only the ``passed`` names."""
    if passed is None:
        return dict(environ)
    return {name: environ[name] for name in passed if name in environ}


class ExecCaller:
    """Runs ``spec.command`` once per call."""

    def __init__(self, spec: ExecSut, *, base_dir: Path | FileScope, timeout: float) -> None:
        self.spec = spec
        self.timeout = timeout
        files = scope_of(base_dir)
        self.cwd = files.base_dir
        if spec.cwd:
            try:
                self.cwd = files.resolve(spec.cwd, f"cwd {spec.cwd!r}").path
            except FileRefused as refused:
                raise SutError(f"sut exec: {refused}") from None
        if not self.cwd.is_dir():
            raise SutError(f"sut exec cwd {str(self.cwd)!r} is not a directory")
        if not tracks_escapes():
            from verifier.logs import get_logger

            get_logger("verifier.sut").warning(
                "on this system only a command's process group is killed when its call "
                "ends: a process it started that left the group (setsid, a daemon) may "
                "outlive the run"
            )
        environ = dict(os.environ)
        added, taken = expand_env(dict(spec.env), environ)
        self.env = {**inherited_env(environ, spec.pass_env), **added}
        # Masked over the whole environment: a variable kept from the command may
        # still turn up in what it prints (a key pasted into its input, say).
        self.mask = SecretMask({**environ, **self.env}, taken)
        program = spec.command[0]
        if os.sep in program:
            found = self.cwd / program
            if not (found.is_file() and os.access(found, os.X_OK)):
                raise SutError(f"sut exec: {program!r} is not an executable file in {self.cwd}")
        elif shutil.which(program, path=self.env.get("PATH", os.defpath)) is None:
            raise SutError(f"sut exec: program {program!r} not found on PATH")

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "exec",
            "command": [self.mask(argument) for argument in self.spec.command],
            "cwd": str(self.cwd),
            "env": sorted(self.spec.env),
            **({} if self.spec.pass_env is None else {"pass_env": sorted(self.spec.pass_env)}),
        }

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced:
        started = time.perf_counter()
        token = new_token()
        try:
            process = await asyncio.create_subprocess_exec(
                *self.spec.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env={**self.env, MARKER: token},
                start_new_session=True,
            )
        except OSError as exc:
            return Produced(error=self.mask(f"cannot start {self.spec.command[0]!r}: {exc}"))
        try:
            out, err, overflowed = await asyncio.wait_for(
                _exchange(process, stdin_bytes(value), token), self.timeout
            )
        except TimeoutError:
            await _reap(process, token)
            took = _ms(started)
            return Produced(
                error=f"timed out after {self.timeout:g} s (killed)",
                call={"duration_ms": took, "timed_out": True},
            )
        finally:
            # Whatever the call started dies with it: its group, and what left the
            # group (setsid, a daemon), even when the run is interrupted.
            with contextlib.suppress(asyncio.CancelledError):
                await _reap(process, token)
        call: dict[str, Any] = {"exit_code": process.returncode, "duration_ms": _ms(started)}
        if overflowed:
            call["stdout_overflow"] = True
            return Produced(
                error=f"wrote more than {MAX_STDOUT_BYTES} bytes on stdout (killed)", call=call
            )
        code = process.returncode
        if code != 0:
            what = (
                f"killed by signal {-code}" if code is not None and code < 0 else f"exited {code}"
            )
            tail = one_line_tail(err.decode("utf-8", "replace"), self.mask)
            call["stderr_tail"] = tail
            return Produced(error=f"{what}; stderr: {tail or '(empty)'}", call=call)
        try:
            text = out.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Produced(error=f"stdout is not valid UTF-8 at byte {exc.start}", call=call)
        return Produced(value=_chomp(text), call=call)

    async def aclose(self) -> None:
        return None


MAX_STDOUT_BYTES = 16 * 1024 * 1024
"""Most a command may write on stdout for one case; past it the command is killed."""
_STDERR_KEPT = 64 * 1024  # only the tail of stderr is ever shown
_REAP_TRIES = 5
_REAP_WAIT = 1.0  # seconds a killed group's exit and its pipes closing take, at most
_READ = 64 * 1024


async def _exchange(
    process: asyncio.subprocess.Process, data: bytes, token: str
) -> tuple[bytes, bytes, bool]:
    """Feeds stdin while reading stdout and stderr, in bounded memory.

    Returns stdout, the tail of stderr, and whether stdout passed ``MAX_STDOUT_BYTES``
    (the process group is then killed and stdout dropped). Once the command has
    exited, what it left running is killed, so a leftover holding its pipes open does
    not hold the call until its timeout.
    """
    assert process.stdin and process.stdout and process.stderr
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr

    async def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.write(data)
            await stdin.drain()
        stdin.close()

    async def read_out() -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        while chunk := await stdout.read(_READ):
            size += len(chunk)
            if size > MAX_STDOUT_BYTES:
                _kill_group(process)
                return b"", True
            chunks.append(chunk)
        return b"".join(chunks), False

    async def read_err() -> bytes:
        kept = bytearray()
        while chunk := await stderr.read(_READ):
            kept += chunk
            del kept[:-_STDERR_KEPT]
        return bytes(kept)

    async def leftovers() -> None:
        # wait() would wait for the pipes too; returncode is set as the command exits.
        while process.returncode is None:
            await asyncio.sleep(0.05)
        _kill_group(process)
        sweep(token)

    reading = asyncio.gather(feed(), read_out(), read_err())
    watching = asyncio.ensure_future(leftovers())
    try:
        _, (out, overflowed), err = await reading
    finally:
        watching.cancel()
    await process.wait()
    return out, err, overflowed


def _chomp(text: str) -> str:
    """Drops the one line ending a command's output usually has."""
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


async def _reap(process: asyncio.subprocess.Process, token: str) -> None:
    """Kills the call's process group and whatever left it, then waits for the process
    and its pipes, sweeping again while a leftover still holds them (one that left the
    group just as it was killed). Its transport thus closes within the loop: left to
    the garbage collector, an interrupted run's transports would be finalised after the
    loop closed, each printing a traceback as verifier exits. Bounded: a leftover that
    cannot be killed costs a few seconds, never the run."""
    for _ in range(_REAP_TRIES):
        if process.returncode is None:
            _kill_group(process)
        sweep(token, spare=process.pid if process.returncode is None else None)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), _REAP_WAIT)
            return


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
