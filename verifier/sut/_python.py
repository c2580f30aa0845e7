"""A Python function as the system under test: ``module:function``, called with the
case's input.

The module is imported when the run starts (the directory a relative path is resolved
from, then the contract's, go first on ``sys.path``, so a module beside the contract
is found), and a missing module or
function stops the run before any case. A coroutine function is awaited on the run's
loop; any other callable runs in a thread of its own, started when the call starts (the
stage already bounds calls in flight), so the timeout counts only the function's own
time. A call that exceeds the timeout becomes an error for its case; a thread cannot
be stopped, so a runaway synchronous function keeps its thread until it returns, but a
daemon thread: it never holds up the next call or the process's exit. Each call gets
its own copy of the input, so a function that changes it changes nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from verifier.errors import SutError
from verifier.sut._types import Produced, SecretMask, one_line_tail


def resolve_function(target: str, search: Sequence[Path]) -> Callable[..., Any]:
    """The callable named ``module:function`` (``function`` may be dotted: ``Cls.method``),
    its module looked for in ``search`` first, then on ``sys.path``.

    Raises:
        SutError: The module cannot be imported or names no such callable.
    """
    module_name, _, attribute = target.partition(":")
    for directory in reversed(search):
        where = str(directory.resolve())
        if where not in sys.path:
            sys.path.insert(0, where)
    try:
        found: Any = importlib.import_module(module_name)
    except Exception as exc:  # an import runs arbitrary code; any failure is the spec's
        raise SutError(
            f"sut python: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise SutError(f"sut python: {module_name!r} has no {attribute!r}") from None
    if not callable(found):
        raise SutError(f"sut python: {target!r} is not callable")
    return found  # type: ignore[no-any-return]


class PythonCaller:
    """Calls one function per case."""

    def __init__(self, target: str, *, search: Sequence[Path], timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.function = resolve_function(target, search)
        self.is_async = inspect.iscoroutinefunction(self.function)
        self.mask = SecretMask(os.environ)

    def describe(self) -> dict[str, Any]:
        return {"kind": "python", "function": self.target}

    async def call(self, value: Any, *, case_id: str, run: int) -> Produced:
        value = own_copy(value)
        started = time.perf_counter()
        try:
            if self.is_async:
                result = await asyncio.wait_for(self.function(value), self.timeout)
            else:
                result = await asyncio.wait_for(
                    in_daemon_thread(self.function, value, name=f"sut {case_id}"), self.timeout
                )
        except TimeoutError:
            return Produced(
                error=f"did not return within {self.timeout:g} s",
                call={"duration_ms": _ms(started), "timed_out": True},
            )
        except Exception as exc:
            return Produced(error=self._raised(exc), call={"duration_ms": _ms(started)})
        return Produced(value=result, call={"duration_ms": _ms(started)})

    def _raised(self, exc: Exception) -> str:
        frames = traceback.extract_tb(exc.__traceback__)
        at = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
        return one_line_tail(f"raised {type(exc).__name__}: {exc}{at}", self.mask)

    async def aclose(self) -> None:
        return None


def own_copy(value: Any) -> Any:
    """A deep copy of a case's input (JSON data, as read from a cases file)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:  # not JSON data (a case built in code): copied as Python objects
        import copy

        return copy.deepcopy(value)


def in_daemon_thread(function: Callable[[Any], Any], value: Any, *, name: str) -> Any:
    """``function(value)`` run in a new daemon thread, as an awaitable future of its
    result. Cancelling the future (a timeout) leaves the thread to finish on its own;
    its result is then dropped."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # timed out or the run was interrupted
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = function(value)
        except Exception as exc:
            error = exc
        except BaseException as exc:  # SystemExit, KeyboardInterrupt: the call's failure only
            error = RuntimeError(f"{type(exc).__name__}: {exc}").with_traceback(exc.__traceback__)
        # A closed loop (RuntimeError): nobody waits for this result any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name=name, daemon=True).start()
    return future


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
