"""``verifier mcp`` started as a subprocess and driven through the SDK's own stdio client."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

T = TypeVar("T")


def served(
    root: Path,
    talk: Callable[[ClientSession], Awaitable[T]],
    *options: str,
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> T:
    """Starts ``verifier [--log-level debug] mcp --root ROOT OPTIONS`` in ``root``, opens a
    client session to it and returns what ``talk`` returns. The server's stderr goes to
    ``log`` (by default ``ROOT/server.log``); its stdout carries only the protocol."""
    log = log or root / "server.log"
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "verifier", "--log-level", "debug", "mcp", "--root", str(root), *options],
        env=env,
        cwd=root,
    )

    async def main() -> T:
        with log.open("w", encoding="utf-8") as errlog:
            async with (
                stdio_client(parameters, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await talk(session)

    return anyio.run(main)


def answer(result: CallToolResult) -> dict[str, Any]:
    """The structured answer of a call that succeeded (its text says the same)."""
    assert not result.is_error, text(result)
    assert isinstance(result.structured_content, dict)
    assert json.loads(text(result)) == result.structured_content
    return result.structured_content


def error_line(result: CallToolResult) -> str:
    """The one line of a call that failed as a tool result."""
    assert result.is_error, result
    line = text(result)
    assert "\n" not in line and "Traceback" not in line
    return line


def text(result: CallToolResult) -> str:
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text
