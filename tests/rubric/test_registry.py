from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from verifier.contract.rubric_claims import RUBRIC_CLAIM_MODELS
from verifier.rubric._base import Outcome, PrepareContext
from verifier.rubric._registry import REGISTRY

Make = Callable[..., Any]
NAMES = sorted(REGISTRY)
V1 = {
    "regex", "contains", "not_contains", "enum", "range", "length", "json_schema", "present",
    "citation", "similar", "equals", "sha256", "all", "any", "not",
}  # fmt: skip


def _top(schema: dict[str, Any]) -> dict[str, Any]:
    """The model's own schema; recursive models (combinators) put it behind a $ref."""
    ref = schema.get("$ref")
    return schema["$defs"][ref.rsplit("/", 1)[1]] if ref else schema


def test_every_v1_predicate_is_registered() -> None:
    assert set(REGISTRY) == V1


def test_the_family_table_names_every_entry_of_every_family_once() -> None:
    # The registry finds a predicate's module through FAMILIES without importing the
    # others; the families' own ENTRIES are the truth it must agree with.
    from verifier.rubric import _registry

    modules = sorted(set(_registry.FAMILIES.values()))
    declared = [
        (entry.name, module)
        for module in modules
        for entry in importlib.import_module(f"verifier.rubric.{module}").ENTRIES
    ]
    assert sorted(declared) == sorted(_registry.FAMILIES.items())
    assert len(declared) == len({name for name, _ in declared})
    assert {path.stem for path in Path(_registry.__file__).parent.glob("_*.py")} - {
        "__init__",
        "_base",
        "_registry",
        "_scales",
    } == set(modules)


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        REGISTRY["x"] = REGISTRY["regex"]  # type: ignore[index]


@pytest.mark.parametrize("name", NAMES)
def test_every_predicate_has_docs_a_schema_and_a_working_example(name: str) -> None:
    entry = REGISTRY[name]
    assert entry.name == name
    assert len(entry.doc) > 80
    assert not entry.needs_model_call
    schema = _top(entry.spec.model_json_schema())
    assert schema["properties"]["rubric"]["const"] == name
    assert entry.example["id"] and entry.example["rubric"] == name
    claim = RUBRIC_CLAIM_MODELS[name].model_validate(entry.example)
    check = entry.prepare(claim, PrepareContext())
    outcome = check({"id": "c", "input": "x", "output": "y"})
    assert isinstance(outcome, Outcome)
    assert outcome.status in ("pass", "fail") and outcome.reason


@pytest.mark.parametrize("name", NAMES)
def test_every_spec_rejects_unknown_keys(name: str) -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        RUBRIC_CLAIM_MODELS[name].model_validate({**REGISTRY[name].example, "surprise": 1})


@pytest.mark.parametrize("name", NAMES)
def test_specs_are_frozen(name: str) -> None:
    claim = RUBRIC_CLAIM_MODELS[name].model_validate(REGISTRY[name].example)
    with pytest.raises(ValidationError):
        claim.rubric = "other"


@pytest.mark.parametrize("name", NAMES)
def test_specs_do_not_redefine_claim_keys(name: str) -> None:
    assert not {"id", "weight", "after", "description"} & set(REGISTRY[name].spec.model_fields)


def test_json_schema_spec_is_written_as_schema_in_contracts() -> None:
    props = REGISTRY["json_schema"].spec.model_json_schema()["properties"]
    assert "schema" in props and "schema_" not in props


def test_combinator_schema_recurses_into_every_predicate() -> None:
    schema = _top(REGISTRY["any"].spec.model_json_schema())
    mapping = schema["properties"]["of"]["items"]["discriminator"]["mapping"]
    assert set(mapping) == V1
