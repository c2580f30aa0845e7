"""``json_schema``: a field (or the JSON a text field holds) validated by a JSON Schema.

Schemas are compiled once with ``jsonschema_rs`` (Rust): a valid value costs a few
microseconds, and errors are collected only for values that fail. Compilation is
offline, so a ``$ref`` to a URL or file is never fetched: a schema that depends on
one is checked at load like any other, and every value it is applied to becomes an
error row naming the unresolvable reference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Literal

import jsonschema_rs
import orjson
from pydantic import Field, ValidationInfo, model_validator

from verifier._internal.file_lookup import is_file
from verifier._internal.json_words import json_kind
from verifier.files import WITHHELD, FileScope, scope_of
from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    cannot_apply,
    clip,
    each_value,
    errored,
    failed,
    field_path,
    passed,
)

_MAX_ERRORS = 5
_MESSAGE_CHARS = 200


class JsonSchemaSpec(PredicateSpec):
    """Validates a field against a JSON Schema, given inline or as a file."""

    rubric: Literal["json_schema"]
    field: PathText = Field(
        description="Path of the field validated; text is parsed as JSON first."
    )
    # `schema` would shadow a BaseModel attribute, hence the alias: contracts still say schema.
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="The JSON Schema, inline."
    )
    schema_file: str | None = Field(
        default=None,
        description="A JSON (or YAML) schema file, relative to the contract, in its folder "
        "or below.",
    )

    @model_validator(mode="after")
    def _one_valid_schema(self, info: ValidationInfo) -> JsonSchemaSpec:
        if (self.schema_ is None) == (self.schema_file is None):
            raise ValueError("json_schema needs exactly one of `schema` (inline) or `schema_file`")
        if self.schema_ is not None:
            check_schema(self.schema_)
        elif info.context and info.context.get("base_dir") is not None:
            assert self.schema_file is not None
            load_schema(info.context["base_dir"], self.schema_file)
        return self


def pointer(parts: Any) -> str:
    """A JSON Pointer (RFC 6901) for a path given as keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(frozen=True, slots=True)
class CompiledSchema:
    """A schema ready to validate values, or the reason its references cannot resolve.

    Attributes:
        validator: The compiled validator, or ``None`` when a ``$ref`` is unresolvable.
        unresolvable: Why a ``$ref`` cannot be resolved, or ``None``.
    """

    validator: jsonschema_rs.Validator | None
    unresolvable: str | None = None


def check_schema(schema: Mapping[str, Any]) -> CompiledSchema:
    """Compiles ``schema``, raising ``ValueError`` when it breaks its meta-schema.

    The draft follows ``$schema``; an unknown ``$schema`` means 2020-12. An unresolvable
    ``$ref`` does not make the schema invalid: it is returned in ``unresolvable`` so each
    value checked becomes an error row, as when the reference was resolved lazily.
    """
    # validator_cls_for defaults an unknown $schema to 2020-12 without looking it up,
    # where validator_for would reject it as an unregistered meta-schema.
    cls = jsonschema_rs.validator_cls_for(dict(schema))
    try:
        # offline: no $ref (nor $schema) is ever fetched, whatever scheme it names.
        return CompiledSchema(cls(dict(schema), validate_formats=True, offline=True))
    except jsonschema_rs.ValidationError as exc:
        if isinstance(exc.kind, jsonschema_rs.ValidationErrorKind.Referencing):
            return CompiledSchema(None, exc.message)
        where = pointer(exc.instance_path) or "the top level"
        raise ValueError(f"invalid JSON Schema at {where}: {exc.message}") from None


def load_schema(base_dir: Path | FileScope, name: str) -> dict[str, Any]:
    """Reads and checks a schema file named by a contract, raising ``ValueError``.

    ``name`` is resolved from the contract's folder and must lie in its tree (or a
    directory the scope allows); a problem in a file outside the tree is reported
    without quoting it.
    """
    named = scope_of(base_dir).resolve(name, f"schema_file {name!r}")
    path = named.path
    if not is_file(path):
        raise ValueError(f"schema_file {name!r} does not exist (relative to the contract)")
    from verifier._internal.yaml_positions import MAX_BYTES

    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ValueError(
                f"schema_file {name!r} is {size} bytes; files a contract reads are limited "
                f"to {MAX_BYTES} bytes"
            )
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"schema_file {name!r} cannot be read: {named.quote(str(exc))}") from None
    if path.suffix in (".yaml", ".yml"):
        # The contract's own reader and limits (size, nodes, depth): a schema file is
        # YAML a contract brings in, and an alias bomb must not expand here either.
        from verifier._internal.yaml_positions import YamlProblem, parse_yaml_with_positions

        try:
            schema, _ = parse_yaml_with_positions(raw)
        except YamlProblem as exc:
            raise ValueError(
                f"schema_file {name!r} line {exc.line} column {exc.col}: {named.quote(exc.message)}"
            ) from None
    else:
        try:
            schema = json.loads(text)
        except ValueError as exc:
            raise ValueError(
                f"schema_file {name!r} is not valid JSON: {named.quote(str(exc))}"
            ) from None
        except RecursionError:
            raise ValueError(f"schema_file {name!r} nests too deeply to read") from None
    if not isinstance(schema, dict):
        raise ValueError(f"schema_file {name!r} must hold an object, not {json_kind(schema)}")
    try:
        check_schema(schema)
    except ValueError:
        if not named.outside:
            raise
        raise ValueError(f"schema_file {name!r} is not a valid JSON Schema {WITHHELD}") from None
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
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            # orjson's own refusal of deep nesting sent it here; JSON this deep is no
            # document a schema describes.
            raise ValueError("it nests too deeply to read") from None


def _prepare(spec: JsonSchemaSpec, ctx: PrepareContext) -> Check:
    if spec.schema_ is not None:
        schema = spec.schema_
    else:
        assert spec.schema_file is not None
        schema = load_schema(ctx.base_dir, spec.schema_file)
    compiled = check_schema(schema)
    validator = compiled.validator
    path = field_path(spec.field)

    def check_value(where: str, value: Any) -> Outcome:
        if isinstance(value, str):
            try:
                value = _parse(value)
            except ValueError as exc:
                return cannot_apply(
                    f"{where} is not valid JSON: {exc}", {"path": where, "error": str(exc)}
                )
        if validator is None:
            return errored(
                f"the schema for {where} has an unresolvable $ref: {compiled.unresolvable}",
                {"path": where},
            )
        # The fast path: most values are valid, and is_valid stops at the first error.
        if validator.is_valid(value):
            return passed(f"{where} matches the schema", {"path": where})
        errors = list(islice(validator.iter_errors(value), _MAX_ERRORS + 1))
        shown = [
            {
                "pointer": pointer(e.instance_path),
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

    return each_value(path, check_value)


ENTRIES = (
    PredicateEntry(
        name="json_schema",
        spec=JsonSchemaSpec,
        prepare=_prepare,
        doc=(
            "Validates the field against a JSON Schema given inline (`schema`) or as a file "
            "relative to the contract (`schema_file`, JSON or YAML, in the contract's folder "
            "or below unless `--allow-outside` allows its directory); the draft follows the "
            "schema's `$schema` (default 2020-12) and `format` is checked. A `$ref` resolves "
            "only within the schema: one naming a URL or another file is never fetched, and "
            "every value checked against it is an error. A text field is "
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
