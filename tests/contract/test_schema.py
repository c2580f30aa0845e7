"""The committed contract JSON Schema is current and agrees with the loader."""

from __future__ import annotations

import json

import jsonschema
import yaml

from tests.conftest import EXAMPLES, FIXTURES, ROOT
from verifier.contract.schema import contract_json_schema, render_schema

COMMITTED = ROOT / "contracts" / "contract.schema.json"


def test_committed_contract_schema_is_current() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_schema(contract_json_schema()), (
        "contracts/contract.schema.json is stale: run `python -m verifier.contract.schema`"
    )


def test_committed_schema_is_a_valid_json_schema() -> None:
    schema = json.loads(COMMITTED.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)


def test_examples_validate_against_the_committed_schema() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(COMMITTED.read_text(encoding="utf-8")))
    for path in sorted(EXAMPLES.glob("*.yaml")):
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8"))))
        assert errors == [], (path, [e.message for e in errors])


def test_schema_rejects_unknown_keys_as_the_loader_does() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(COMMITTED.read_text(encoding="utf-8")))
    bad = yaml.safe_load(
        (FIXTURES / "contracts" / "many-problems.yaml").read_text(encoding="utf-8")
    )
    assert not validator.is_valid(bad)
    typo = {
        "contract": "x",
        "version": 1,
        "claims": [{"id": "a", "rubric": "present", "field": "o", "feild": 1}],
    }
    assert not validator.is_valid(typo)
