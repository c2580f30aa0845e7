"""The predicate reference (``docs/reference/predicates.md``), generated from the registry.

Regenerate with ``python -m verifier.rubric.docs``; a test fails when the committed
page differs from what the registry says.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

COMMITTED = Path("docs/reference/predicates.md")


def _type_name(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type_name(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "enum" in schema:
        return " or ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return str(schema["const"])
    if schema.get("type") == "array":
        return f"list of {_type_name(schema.get('items', {}))}"
    if "$ref" in schema or "oneOf" in schema:
        return "predicate"
    name = str(schema.get("type", "any"))
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"{name}, {low}-{high}"
    return f"{name}, at least {low}" if low is not None else name


_PREAMBLE = (
    "# Rubric predicates",
    "",
    "Generated from the predicate registry by `python -m verifier.rubric.docs`; do not edit.",
    "Every claim may also carry `id` (required), `description`, `weight` (default 1),",
    "`after` (claims that must pass first) and `when` (a field path: the claim applies",
    "only to cases where it finds something, elsewhere its row is skipped as not",
    "applicable and weighs nothing in the case's score; see the README's Scoring).",
    "Field paths are dotted (`fields.name`, `items.0.title`) with `*` for every key or",
    "element. A field holding JSON text (a",
    "logged `output` such as `'{\"total\": 3}'`) is read into by naming it in the",
    "contract's top-level `parse_json: [output]`: it is parsed once per case, before any",
    "claim reads it, so `output.total` then finds 3.",
    "",
    "**Scales.** Similarity keys (`min_ratio` of `similar` and `citation`, and of `compare`",
    "claims) are on rapidfuzz's 0-100 scale: `min_ratio: 80` means 80% similar, and reasons",
    "and evidence (`ratio`, `min_ratio`) print the same 0-100 numbers. A value in (0, 1] on",
    "a 0-100 key is refused by `verifier check` (`min_ratio is on a 0-100 scale; 0.8 would",
    "pass almost anything — did you mean 80?`). Keys on a 0-1 scale (the contract's",
    "`threshold`, a judge's `top_p`) refuse a value in (1, 100] the same way. A claim's",
    "score is always 0-1: a similarity's score is its ratio / 100.",
    "",
    "**Combinators.** `all`, `any` and `not` take `of`, a list of predicates written like",
    "claims without `id`, `description`, `weight` or `after`, and an optional `field` their",
    "items inherit; they nest (`not` of `any`, ...).",
    "",
)


def _own(schema: dict[str, Any]) -> dict[str, Any]:
    """The spec's own schema: a recursive one (the combinators) is a ``$ref`` into ``$defs``."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        own: dict[str, Any] = schema["$defs"][ref.removeprefix("#/$defs/")]
        return own
    return schema


def render_reference() -> str:
    """The whole Markdown page."""
    from verifier.rubric._registry import REGISTRY

    out = [*_PREAMBLE]
    for name, entry in REGISTRY.items():
        schema = _own(entry.spec.model_json_schema(by_alias=True))
        required = set(schema.get("required", []))
        out += [
            f"## `{name}`",
            "",
            entry.doc,
            "",
            "| key | type | default | meaning |",
            "|---|---|---|---|",
        ]
        for key, prop in schema.get("properties", {}).items():
            if key == "rubric":
                continue
            default = "required" if key in required else repr(prop.get("default", None))
            meaning = str(prop.get("description", "")).replace("|", "\\|").replace("\n", " ")
            out.append(f"| `{key}` | {_type_name(prop)} | {default} | {meaning} |")
        example = yaml.safe_dump([entry.example], sort_keys=False, allow_unicode=True, width=88)
        out += ["", "```yaml", example.rstrip(), "```", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else COMMITTED
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_reference(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
