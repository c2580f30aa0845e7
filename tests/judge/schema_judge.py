"""A stand-in judge that knows only the forced tool's schema, as the test server gets it.

It answers every call with an instance of the schema it received, checked against that
schema with ``jsonschema``: at one extreme the fewest entries and lowest numbers the
schema allows, at the other the most entries and highest numbers. A model that follows
the tool's schema can give either, so the validator must accept both; it can only when
the schema states what the validator demands (one entry per claim, each claim's id,
a binary claim's criteria count, a scale's bounds).
"""

from __future__ import annotations

from typing import Any, Literal

import jsonschema

from tests.judge.behaviours import Behaviour, tool_use

Extreme = Literal["fewest", "most"]

UNBOUNDED_ITEMS = 3
"""Entries of an array whose schema sets no ``maxItems``, at the ``most`` extreme."""
UNBOUNDED_NUMBER = 100
"""A number whose schema sets no bound, at the ``most`` extreme (0 at ``fewest``)."""


def forced_schema(request: dict[str, Any]) -> dict[str, Any]:
    """The input schema of the tool a request forces (Messages API, a batch item's
    params, or an OpenAI-compatible chat completion)."""
    choice = request["tool_choice"]
    name = choice.get("name") or choice["function"]["name"]
    for tool in request["tools"]:
        if "function" in tool:
            if tool["function"]["name"] == name:
                return dict(tool["function"]["parameters"])
        elif tool["name"] == name:
            return dict(tool["input_schema"])
    raise AssertionError(f"the request forces {name!r} but sends no such tool")


def instance(schema: dict[str, Any], extreme: Extreme) -> Any:
    """An instance of ``schema`` (the subset the verdict tools use) at ``extreme``."""
    if "enum" in schema:
        return schema["enum"][0 if extreme == "fewest" else -1]
    kind = schema.get("type")
    if kind == "object":
        return {name: instance(sub, extreme) for name, sub in schema["properties"].items()}
    if kind == "array":
        low = schema.get("minItems", 0)
        count = low if extreme == "fewest" else schema.get("maxItems", low + UNBOUNDED_ITEMS)
        items = schema["items"]
        choices = items.get("anyOf", [items])
        return [instance(choices[i % len(choices)], extreme) for i in range(count)]
    if kind in ("integer", "number"):
        if extreme == "fewest":
            return schema.get("minimum", 0)
        return schema.get("maximum", UNBOUNDED_NUMBER)
    if kind == "boolean":
        return extreme == "most"
    return "as the schema allows"


def schema_judge(extreme: Extreme) -> Any:
    """A responder answering every call with the schema's instance at ``extreme``."""

    def respond(request: dict[str, Any]) -> Behaviour:
        schema = forced_schema(request)
        answer = instance(schema, extreme)
        jsonschema.validate(answer, schema)
        return tool_use(answer)

    return respond
