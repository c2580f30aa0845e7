"""A Python function as the system under test: ``module:function``, called with the
case's input.

The module is imported when the run starts (the directory a relative path is resolved
from, then the contract's, go first on ``sys.path``, so a module beside the contract
is found), and a missing module or
function stops the run before any case. A coroutine function is awaited on the run's
loop; any other callable runs in a worker thread so calls overlap. A call that exceeds
the timeout becomes an error for its case; a thread cannot be stopped, so a runaway
synchronous function keeps its thread until it returns.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from verifier.sut._types import Produced, SecretMask, SutError, one_line_tail


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
        started = time.perf_counter()
        try:
            if self.is_async:
                result = await asyncio.wait_for(self.function(value), self.timeout)
            else:
                result = await asyncio.wait_for(
                    asyncio.to_thread(self.function, value), self.timeout
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


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
