"""A JSON Schema as Markdown: one table of keys per object, in the order a reader meets them.

The contract format, the gap row and the HTTP API's bodies are all JSON Schemas generated
from the models, so one renderer serves the three reference pages and none of them can
drift from the code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "anchor",
    "cell",
    "definition_sections",
    "object_table",
    "reading_order",
    "render_schema",
    "type_name",
]

_DEFS = ("#/$defs/", "#/components/schemas/")


def _ref_name(ref: str) -> str:
    for prefix in _DEFS:
        if ref.startswith(prefix):
            return ref.removeprefix(prefix)
    return ref


def anchor(name: str) -> str:
    """The id of a definition's heading (explicit, so links do not depend on slugging)."""
    return "def-" + name.lower()


def _limits(schema: Mapping[str, Any]) -> str:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f", {low}-{high}"
    if low is not None:
        return f", above {low}" if "exclusiveMinimum" in schema else f", at least {low}"
    return f", at most {high}" if high is not None else ""


def type_name(schema: Mapping[str, Any]) -> str:
    """How a value's type reads in a table cell, with definitions linked.

    Args:
        schema: The schema of one value.
    """
    if "$ref" in schema:
        name = _ref_name(str(schema["$ref"]))
        return f"[{name}](#{anchor(name)})"
    for union in ("anyOf", "oneOf"):
        if union in schema:
            names = [type_name(s) for s in schema[union] if s.get("type") != "null"]
            return " or ".join(dict.fromkeys(names))
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " or ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind if k != "null")
    if kind == "array":
        return f"list of {type_name(schema.get('items', {}))}"
    extra = schema.get("additionalProperties")
    if kind == "object" and isinstance(extra, dict):
        return f"map of name to {type_name(extra)}"
    return f"{kind}{_limits(schema)}"


def cell(text: str) -> str:
    # A pipe ends a table cell unless it is escaped, or inside a code span (where an
    # escape would show): escape only the pipes outside the backticks.
    parts = re.split(r"(`[^`]*`)", text.replace("\n", " "))
    return "".join(p if p.startswith("`") else p.replace("|", "\\|") for p in parts)


def _default(key: str, schema: Mapping[str, Any], required: set[str]) -> str:
    if key in required:
        return "required"
    if "default" not in schema:
        return "optional"
    default = schema["default"]
    return "none" if default is None else f"`{json.dumps(default)}`"


def _meaning(schema: Mapping[str, Any]) -> str:
    text = str(schema.get("description", ""))
    pattern = schema.get("pattern")
    if pattern is None:
        # A nullable string keeps its pattern inside the union.
        found = [s["pattern"] for s in schema.get("anyOf", []) if "pattern" in s]
        pattern = found[0] if found else None
    if pattern is not None:
        text += f" Matches `{pattern}`."
    return cell(text.strip())


def object_table(schema: Mapping[str, Any]) -> list[str]:
    """The rows of one object's keys: key, type, default (or required) and meaning."""
    required = set(schema.get("required", []))
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for key, prop in schema.get("properties", {}).items():
        rows.append(
            f"| `{key}` | {cell(type_name(prop))} | {_default(key, prop, required)} "
            f"| {_meaning(prop)} |"
        )
    return rows


def _refs(node: Any) -> Iterator[str]:
    """Every definition ``node`` refers to, in document order."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield _ref_name(node["$ref"])
        for key, value in node.items():
            if key != "discriminator":
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def reading_order(root: Any, definitions: Mapping[str, Any]) -> list[str]:
    """Definitions breadth first from ``root``, then any that nothing reaches."""
    order: list[str] = []
    queue = list(_refs(root))
    while queue:
        name = queue.pop(0)
        if name in order or name not in definitions:
            continue
        order.append(name)
        queue.extend(_refs(definitions[name]))
    return order + [name for name in definitions if name not in order]


def definition_sections(
    definitions: Mapping[str, Any], order: list[str], *, level: int = 2
) -> list[str]:
    """A heading, the description and the table of keys of each definition."""
    out: list[str] = []
    for name in order:
        schema = definitions[name]
        out += [f"{'#' * level} `{name}` {{ #{anchor(name)} }}", ""]
        if schema.get("description"):
            out += [str(schema["description"]), ""]
        if schema.get("properties"):
            out += [*object_table(schema), ""]
        else:
            out += [f"Type: {type_name(schema)}.", ""]
    return out


def render_schema(schema: Mapping[str, Any], *, title: str) -> str:
    """The whole schema: its top-level keys, then every definition it uses.

    Args:
        schema: A JSON Schema whose definitions are under ``$defs``.
        title: The heading of the top-level object's section.
    """
    definitions: Mapping[str, Any] = schema.get("$defs", {})
    out = [f"## {title} {{ #{anchor(title)} }}", ""]
    if schema.get("description"):
        out += [str(schema["description"]), ""]
    out += [*object_table(schema), ""]
    out += definition_sections(definitions, reading_order(schema.get("properties"), definitions))
    return "\n".join(out)
