"""The HTTP reference: every route of ``verifier serve``, from the application itself.

The API's routes come from its OpenAPI document (the one the server serves at
``/openapi.json``), their bodies from the document's schemas; the viewer's pages, which
the document leaves out, from the viewer's router.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier._reference.schema_tables import (
    cell,
    definition_sections,
    reading_order,
    type_name,
)

__all__ = ["api_document", "render_http", "viewer_routes"]

_METHODS = ("get", "post", "put", "patch", "delete")


def api_document() -> dict[str, Any]:
    """The OpenAPI document of a server started with the default limits and a token.

    The limits a server is started with appear in its answers' descriptions; a token
    is set so the document shows the 401 answer every request can get off loopback.
    """
    from verifier.server import ServerSettings, create_app

    document: dict[str, Any] = create_app(ServerSettings(token="x" * 16)).openapi()
    return document


def viewer_routes() -> list[tuple[str, str, str]]:
    """``(path, query parameters, what it shows)`` of every page of the viewer, as the
    server mounts them."""
    from fastapi.routing import APIRoute

    from verifier.viewer.app import viewer_router

    routes = [r for r in viewer_router("gaps.db").routes if isinstance(r, APIRoute)]
    return [
        (
            r.path,
            ", ".join(f"`{p.alias}`" for p in r.dependant.query_params),
            (r.endpoint.__doc__ or "").strip().split("\n", 1)[0],
        )
        for r in routes
    ]


def _operation(method: str, path: str, operation: Mapping[str, Any]) -> list[str]:
    out = [f"### `{method.upper()} {path}`", ""]
    if operation.get("summary"):
        out += [f"**{operation['summary']}.**", ""]
    if operation.get("description"):
        out += [" ".join(str(operation["description"]).split()), ""]
    parameters = operation.get("parameters", [])
    if parameters:
        out += ["| parameter | in | type | meaning |", "|---|---|---|---|"]
        for p in parameters:
            out.append(
                f"| `{p['name']}` | {p['in']} | {cell(type_name(p.get('schema', {})))} "
                f"| {cell(p.get('description', ''))} |"
            )
        out.append("")
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None:
        out += [f"Request body (JSON): {type_name(body['schema'])}.", ""]
    out += ["| status | when | body |", "|---|---|---|"]
    for status, answer in sorted(operation.get("responses", {}).items()):
        shapes = [media.get("schema") for media in answer.get("content", {}).values()]
        body_type = type_name(shapes[0]) if shapes and shapes[0] else ""
        out.append(f"| {status} | {cell(answer.get('description', ''))} | {cell(body_type)} |")
    return [*out, ""]


def render_http() -> str:
    """The routes, then the schemas of their bodies, then the viewer's pages."""
    document = api_document()
    out = ["## Routes", ""]
    for path, item in document["paths"].items():
        for method in _METHODS:
            if method in item:
                out += _operation(method, path, item[method])
    out += [
        "### `GET /openapi.json`",
        "",
        "**The OpenAPI document of this server.** It describes every route above, with the",
        "limits the server was started with.",
        "",
        "## Bodies",
        "",
    ]
    schemas: Mapping[str, Any] = document.get("components", {}).get("schemas", {})
    out += definition_sections(schemas, reading_order(document["paths"], schemas), level=3)
    out += [
        "## Viewer pages",
        "",
        "`verifier serve` also serves the viewer's pages (HTML, `GET` only, behind the same",
        "token), as `verifier view` does alone.",
        "",
        "| path | query | shows |",
        "|---|---|---|",
    ]
    out += [f"| `GET {path}` | {query} | {shows} |" for path, query, shows in viewer_routes()]
    return "\n".join(out) + "\n"
