"""The predicate reference (``docs/predicates.md``), generated from the registry.

Regenerate with ``python -m verifier.rubric.docs``; a test fails when the committed
page differs from what the registry says.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

COMMITTED = Path("docs/predicates.md")


def _type_name(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type_name(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "enum" in schema:
        return " or ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return str(schema["const"])
    if schema.get("type") == "array":
        return f"list of {_type_name(schema.get('items', {}))}"
    if "$ref" in schema:
        return "predicate"
    return str(schema.get("type", "any"))


def render_reference() -> str:
    """The whole Markdown page."""
    from verifier.rubric._registry import REGISTRY

    out = [
        "# Rubric predicates",
        "",
        "Generated from the predicate registry by `python -m verifier.rubric.docs`; do not edit.",
        "Every claim may also carry `id` (required), `description`, `weight` (default 1) and",
        "`after` (claims that must pass first). Field paths are dotted (`fields.name`,",
        "`items.0.title`) with `*` for every key or element.",
        "",
    ]
    for name, entry in REGISTRY.items():
        schema = entry.spec.model_json_schema(by_alias=True)
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
