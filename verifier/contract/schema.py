"""The JSON Schema of contract format v1, generated from the models.

The committed copy (``contracts/contract.schema.json``) lets editors validate and
complete contracts; a test fails when it is stale. Regenerate with
``python -m verifier.contract.schema``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SCHEMA_ID = "https://verifier.dev/schemas/contract.v1.json"
COMMITTED = Path("contracts/contract.schema.json")


def contract_json_schema() -> dict[str, Any]:
    """The contract format's JSON Schema (draft 2020-12)."""
    from verifier.contract.models import Contract

    schema = Contract.model_json_schema(mode="validation")
    # Predicate specs appear only as items of all/any/not, where `field` may be
    # inherited from the combinator; the loader fills it in, so the schema must not
    # demand it there (claims at the top level still require it).
    for name, definition in schema.get("$defs", {}).items():
        if name.endswith("Spec") and "field" in definition.get("required", []):
            definition["required"] = [r for r in definition["required"] if r != "field"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "verifier contract (format v1)",
        **schema,
    }


def render_schema(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else COMMITTED
    target.write_text(render_schema(contract_json_schema()), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
