"""A Ctrl-C that lands while the server's event loop is being built leaves a half-built
loop; its ``__del__`` fails at exit, and ``verifier serve`` stays quiet about that alone."""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

from verifier.cli.serve import _quiet_half_built_loop


def test_a_half_built_loop_is_quiet_and_other_unraisables_still_reach_the_hook() -> None:
    seen: list[Any] = []
    before = sys.unraisablehook
    sys.unraisablehook = _quiet_half_built_loop(seen.append)
    try:
        half = asyncio.SelectorEventLoop.__new__(asyncio.SelectorEventLoop)
        del half
        gc.collect()
        assert seen == []

        class Fails:
            def __del__(self) -> None:
                raise AttributeError("not a loop")

        fails = Fails()
        del fails
        gc.collect()
        assert [type(u.exc_value) for u in seen] == [AttributeError]
        assert "Fails.__del__" in seen[0].object.__qualname__
    finally:
        sys.unraisablehook = before
