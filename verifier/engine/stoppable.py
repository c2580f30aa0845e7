"""Running a coroutine that SIGTERM stops as Ctrl-C does.

``asyncio.run`` turns Ctrl-C into a cancellation of the main task, which a run
catches to record itself as interrupted (resumable with ``--resume``). SIGTERM, which
a container or CI job sends before killing, would otherwise end the process at once
and leave the run recorded as still running; here it cancels the task the same way.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["Terminated", "run_stoppable", "sigterm_interrupts"]

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM; it was recorded as interrupted, as on Ctrl-C."""


def run_stoppable(main: Coroutine[Any, Any, T]) -> T:
    """Runs ``main`` in a new event loop; SIGTERM stops it as Ctrl-C does.

    Either signal cancels ``main``, so a run in it records itself as interrupted (and
    can be resumed) instead of dying with its run left open. Outside the main thread
    signals cannot be caught and only Ctrl-C's usual handling applies.

    Raises:
        KeyboardInterrupt: Ctrl-C stopped ``main``.
        Terminated: SIGTERM stopped ``main``.
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(main)
    started: list[asyncio.Task[Any]] = []
    terminated = False

    async def guarded() -> T:
        task = asyncio.current_task()
        assert task is not None
        started.append(task)
        if terminated:  # SIGTERM came before the loop ran
            main.close()
            raise asyncio.CancelledError
        return await main

    with asyncio.Runner() as loop_runner:
        loop = loop_runner.get_loop()

        def on_sigterm(signum: int, frame: object) -> None:
            nonlocal terminated
            terminated = True
            if started:
                started[0].cancel()
            loop.call_soon_threadsafe(lambda: None)  # wakes a loop waiting on I/O

        # signal.signal rather than loop.add_signal_handler: the previous handler
        # (a host's, a test runner's) is put back afterwards, not the default.
        previous = signal.signal(signal.SIGTERM, on_sigterm)
        try:
            return loop_runner.run(guarded())
        except asyncio.CancelledError:
            if terminated:
                raise Terminated from None
            raise
        finally:
            signal.signal(signal.SIGTERM, previous)


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While open, SIGTERM raises ``Terminated`` (a ``KeyboardInterrupt``) where the
    main thread is, as Ctrl-C raises ``KeyboardInterrupt``: for work that runs its own
    loops (a judge trial) rather than one ``run_stoppable`` coroutine. Outside the main
    thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigterm(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
