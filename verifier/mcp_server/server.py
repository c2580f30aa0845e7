"""The MCP server: the tools' table, ``tools/list`` and ``tools/call`` on the SDK's
low-level server, served over stdio.

The low-level server, not ``MCPServer``: each tool's input schema is the JSON schema of
a pydantic model given as it is (the ``evaluate`` tool's is the seed's request, not a
schema derived from a function's parameters), and each answer is structured content
checked against the output schema the tool declares.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
import orjson
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ValidationError

from verifier import __version__
from verifier.errors import VerifierError
from verifier.mcp_server.evaluating import evaluate_tool
from verifier.mcp_server.inputs import AuditInput, CheckInput, CheckOutput, RunInput, RunOutput
from verifier.mcp_server.tools import Settings, audit_tool, check_tool, run_tool
from verifier.prompt_eval import EvaluateRequest, EvaluateResponse

__all__ = ["TOOLS", "ToolSpec", "build_server", "serve"]

logger = logging.getLogger(__name__)

Handler = Callable[[Settings, Any], dict[str, Any]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool as a client sees it and as the server answers it.

    Attributes:
        name: The tool's name.
        description: What it does, for the client (and its model) to read.
        arguments: The model its arguments are validated with (the input schema).
        output_schema: The JSON schema of its structured answer.
        handler: Answers a call (blocking; run in a worker thread).
        read_only: Whether it writes nothing (``run`` and ``evaluate`` store a run).
    """

    name: str
    description: str
    arguments: type[BaseModel]
    output_schema: dict[str, Any]
    handler: Handler
    read_only: bool

    def tool(self) -> types.Tool:
        """The tool as ``tools/list`` shows it."""
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.arguments.model_json_schema(),
            output_schema=self.output_schema,
            annotations=types.ToolAnnotations(
                read_only_hint=self.read_only, open_world_hint=not self.read_only
            ),
        )


_AUDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The audit as `verifier audit --format json` gives it.",
    "properties": {
        "ok": {"type": "boolean", "description": "No integrity problem was found."},
        "head": {"type": ["string", "null"], "description": "The store's head hash."},
        "problems": {"type": "array", "items": {"type": "object"}},
        "drift": {"type": "array", "items": {"type": "object"}},
        "alerts": {"type": "array", "items": {"type": "object"}},
        "trends": {"type": "object"},
    },
    "required": ["ok", "head", "problems", "drift", "alerts", "trends"],
}

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "check",
            "Validate and lint a verifier contract (YAML), as `verifier check` does: whether "
            "it can be used, every problem with its file, line and column, and warnings "
            "(judges without a sufficient calibration in the store among them).",
            CheckInput,
            CheckOutput.model_json_schema(),
            check_tool,
            read_only=True,
        ),
        ToolSpec(
            "run",
            "Run a verifier contract over cases (a JSONL file or the cases themselves) and "
            "store every result as a hash-chained gap row, as `verifier run` does. Answers "
            "the run id, totals, pass rate, per-claim tallies and the failing results.",
            RunInput,
            RunOutput.model_json_schema(),
            run_tool,
            read_only=False,
        ),
        ToolSpec(
            "audit",
            "Audit the gap store, as `verifier audit --format json` does: the integrity "
            "verdict (schema, judge triples, hash chain, sealed runs), the head hash, judge "
            "drift, pass-rate trends and degradation alerts.",
            AuditInput,
            _AUDIT_SCHEMA,
            audit_tool,
            read_only=True,
        ),
        ToolSpec(
            "evaluate",
            "Evaluate a prompt empirically: run it with the target model on training examples "
            "(input, expected output) and negative ones (input, bad output, why it is bad), "
            "have the judge model check each output, the prompt's structure and an "
            "adversarial critique, and score it in code (50% empirical, 30% structural, 20% "
            "adversarial; 70/100 passes). Models are exact, pinned ids. Every check is "
            "stored as a gap row.",
            EvaluateRequest,
            EvaluateResponse.model_json_schema(),
            evaluate_tool,
            read_only=False,
        ),
    )
}


def build_server(settings: Settings, tools: dict[str, ToolSpec] = TOOLS) -> Server[Any]:
    """The low-level server answering ``tools/list`` and ``tools/call`` with ``tools``."""
    # One call at a time: runs write the store, and a stdio client is one client.
    lock = anyio.Lock()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in tools.values()])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = tools.get(params.name)
        if spec is None:
            return _error(f"no tool {params.name!r}; the tools are {', '.join(tools)}")
        try:
            arguments = spec.arguments.model_validate(params.arguments or {})
        except ValidationError as exc:
            return _error(f"{spec.name}: {_first_problem(exc)}")
        async with lock:
            try:
                answer = await anyio.to_thread.run_sync(spec.handler, settings, arguments)
            except VerifierError as exc:
                return _error(settings.root.message(str(exc)))
            except Exception as exc:
                # A fault of verifier, not of the call: the client gets one line, the
                # traceback goes to the log (stderr), and the server keeps serving.
                logger.exception("tool %s failed", spec.name)
                return _error(settings.root.message(f"{spec.name} failed: {exc!r}"))
        return types.CallToolResult(
            content=[types.TextContent(text=orjson.dumps(answer).decode())],
            structured_content=answer,
        )

    return Server(
        "verifier",
        version=__version__,
        instructions="Verify what LLM systems produce: check and run YAML contracts of "
        "claims, audit the hash-chained store of results, evaluate a prompt.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _error(line: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=line)], is_error=True)


def _first_problem(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``where: what`` on one line."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    return f"{where}: {error['msg']}" + (
        f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    )


def serve(settings: Settings) -> None:
    """Serves the tools over stdin and stdout until the client closes stdin.

    Nothing but the protocol goes to stdout: the SDK points file descriptor 1 at
    stderr while it serves, so a stray print cannot corrupt the channel.
    """

    async def main() -> None:
        server = build_server(settings)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
