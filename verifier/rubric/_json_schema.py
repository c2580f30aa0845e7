"""``json_schema``: a field (or the JSON a text field holds) validated by a JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import Any, Literal

import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from pydantic import Field, ValidationInfo, model_validator
from referencing.exceptions import Unresolvable

from verifier.rubric._base import (
    Check,
    Outcome,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    clip,
    errored,
    failed,
    field_path,
    for_each_value,
    passed,
)

_MAX_ERRORS = 5
_MESSAGE_CHARS = 200


class JsonSchemaSpec(PredicateSpec):
    """Validates a field against a JSON Schema, given inline or as a file."""

    rubric: Literal["json_schema"]
    field: str = Field(description="Path of the field validated; text is parsed as JSON first.")
    # `schema` would shadow a BaseModel attribute, hence the alias: contracts still say schema.
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="The JSON Schema, inline."
    )
    schema_file: str | None = Field(
        default=None, description="A JSON (or YAML) schema file, relative to the contract."
    )

    @model_validator(mode="after")
    def _one_valid_schema(self, info: ValidationInfo) -> JsonSchemaSpec:
        if (self.schema_ is None) == (self.schema_file is None):
            raise ValueError("json_schema needs exactly one of `schema` (inline) or `schema_file`")
        if self.schema_ is not None:
            check_schema(self.schema_)
        elif info.context and info.context.get("base_dir") is not None:
            assert self.schema_file is not None
            load_schema(Path(info.context["base_dir"]), self.schema_file)
        return self


def pointer(parts: Any) -> str:
    """A JSON Pointer (RFC 6901) for a path given as keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def check_schema(schema: Mapping[str, Any]) -> type[Any]:
    """Returns the validator class for ``schema``, raising ``ValueError`` when it is invalid."""
    cls: type[Any] = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = pointer(exc.absolute_path) or "the top level"
        raise ValueError(f"invalid JSON Schema at {where}: {exc.message}") from None
    return cls


def load_schema(base_dir: Path, name: str) -> dict[str, Any]:
    """Reads and checks a schema file relative to ``base_dir``, raising ``ValueError``."""
    path = base_dir / name
    if not path.is_file():
        raise ValueError(f"schema_file {name!r} does not exist (relative to the contract)")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"schema_file {name!r} cannot be read: {exc}") from None
    if path.suffix in (".yaml", ".yml"):
        import yaml  # only contracts with YAML schema files pay for the import

        try:
            schema = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ValueError(f"schema_file {name!r} is not valid YAML: {exc}") from None
    else:
        try:
            schema = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"schema_file {name!r} is not valid JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise ValueError(f"schema_file {name!r} must hold an object, not {type(schema).__name__}")
    check_schema(schema)
    return schema


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse(text: str) -> Any:
    """Parses JSON, raising ``ValueError`` with a readable reason."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # orjson refuses integers beyond 64 bits that JSON allows; the standard library
        # decides, and its messages name line and column.
        return json.loads(text, parse_constant=_reject_constant)


def _prepare(spec: JsonSchemaSpec, ctx: PrepareContext) -> Check:
    if spec.schema_ is not None:
        schema = spec.schema_
    else:
        assert spec.schema_file is not None
        schema = load_schema(ctx.base_dir, spec.schema_file)
    cls = check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    path = field_path(spec.field)

    def check_value(where: str, value: Any) -> Outcome:
        if isinstance(value, str):
            try:
                value = _parse(value)
            except ValueError as exc:
                return failed(
                    f"{where} is not valid JSON: {exc}", {"path": where, "error": str(exc)}
                )
        try:
            errors = list(islice(validator.iter_errors(value), _MAX_ERRORS + 1))
        except Unresolvable as exc:
            return errored(
                f"the schema for {where} has an unresolvable $ref: {exc}", {"path": where}
            )
        if not errors:
            return passed(f"{where} matches the schema", {"path": where})
        shown = [
            {
                "pointer": pointer(e.absolute_path),
                "message": clip(e.message, _MESSAGE_CHARS),
                "value": clip(e.instance, 80),
            }
            for e in errors[:_MAX_ERRORS]
        ]
        first = shown[0]
        n = len(errors)
        count = f"{_MAX_ERRORS}+ errors" if n > _MAX_ERRORS else f"{n} error{'s' * (n > 1)}"
        return failed(
            f"{where} breaks the schema ({count}): {first['message']} "
            f"at {first['pointer'] or 'the top level'}",
            {"path": where, "errors": shown, "more_errors": len(errors) > _MAX_ERRORS},
        )

    def check(case: Mapping[str, Any]) -> Outcome:
        return for_each_value(path, case, check_value)

    return check


ENTRIES = (
    PredicateEntry(
        name="json_schema",
        spec=JsonSchemaSpec,
        prepare=_prepare,
        doc=(
            "Validates the field against a JSON Schema given inline (`schema`) or as a file "
            "relative to the contract (`schema_file`, JSON or YAML); the draft follows the "
            "schema's `$schema` (default 2020-12) and `format` is checked. A text field is "
            "parsed as JSON first, and text that is not JSON fails with the parse error. "
            "Evidence: up to five errors, each with its JSON Pointer, message and value."
        ),
        example={
            "id": "answer_is_structured",
            "rubric": "json_schema",
            "field": "output",
            "schema": {
                "type": "object",
                "required": ["answer", "sources"],
                "properties": {
                    "answer": {"type": "string", "minLength": 1},
                    "sources": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    ),
)
