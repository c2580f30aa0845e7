"""``equals`` and ``sha256``: exact comparison, only for fields no LLM wrote.

An LLM can phrase a correct answer many ways, so exact equality on its text is a
category error. The contract lint rejects these predicates on ``llm_fields``; here the
same rule is enforced per case, for fields a case's ``field_meta`` marks ``source: llm``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import Field

from verifier._internal.canonical import canonical_json
from verifier.fieldpath import paths_overlap
from verifier.rubric._base import (
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    clip,
    describe,
    errored,
    failed,
    field_path,
    for_each_value,
    llm_written,
    passed,
)

_ADVICE = "use a rubric (regex, enum of accepted values, similar, citation) or a judge instead"

Guard = Callable[[Mapping[str, Any], str], Outcome | None]


def llm_guard(field: str, ctx: PrepareContext, what: str) -> Guard:
    """Returns a per-value check that errors when equality would judge LLM-written text.

    The contract's ``llm_fields`` are settled once here; ``field_meta`` varies per case.
    """
    declared = next((f for f in ctx.llm_fields if paths_overlap(field, f)), None)

    def guard(case: Mapping[str, Any], where: str) -> Outcome | None:
        if declared is not None:
            return errored(
                f"{what} on {where} compares LLM-written text (llm_fields lists {declared}); "
                + _ADVICE,
                {"path": where, "llm_field": declared},
            )
        if llm_written(case, where):
            return errored(
                f"{what} on {where} compares LLM-written text (field_meta marks it source: llm); "
                + _ADVICE,
                {"path": where},
            )
        return None

    return guard


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``true != 1``, in nested values too."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


class EqualsSpec(PredicateSpec):
    """Requires a field to equal a JSON value exactly (not for LLM-written fields)."""

    rubric: Literal["equals"]
    field: PathText = Field(description="Path of the field compared; must not be LLM-written.")
    value: Any = Field(description="The expected JSON value.")


class Sha256Spec(PredicateSpec):
    """Requires a field's SHA-256 to match (not for LLM-written fields)."""

    rubric: Literal["sha256"]
    field: PathText = Field(description="Path of the field hashed; must not be LLM-written.")
    value: str = Field(pattern=r"^[0-9a-f]{64}$", description="Expected hex digest, lowercase.")


def _prepare_equals(spec: EqualsSpec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    expected = spec.value
    guard = llm_guard(spec.field, ctx, "equals")

    def check(case: Mapping[str, Any]) -> Outcome:
        def check_value(where: str, value: Any) -> Outcome:
            refused = guard(case, where)
            if refused is not None:
                return refused
            evidence = {"path": where, "expected": clip(expected), "actual": clip(value)}
            if same_json(value, expected):
                return passed(f"{where} equals {describe(expected)}", evidence)
            return failed(
                f"{where} = {describe(value)} does not equal {describe(expected)}", evidence
            )

        return for_each_value(path, case, check_value)

    return check


def digest(value: Any) -> str:
    """SHA-256 of a string's UTF-8, or of any other value's canonical JSON."""
    data = value.encode("utf-8") if isinstance(value, str) else canonical_json(value)
    return hashlib.sha256(data).hexdigest()


def _prepare_sha256(spec: Sha256Spec, ctx: PrepareContext) -> Check:
    path = field_path(spec.field)
    expected = spec.value
    guard = llm_guard(spec.field, ctx, "sha256")

    def check(case: Mapping[str, Any]) -> Outcome:
        def check_value(where: str, value: Any) -> Outcome:
            refused = guard(case, where)
            if refused is not None:
                return refused
            actual = digest(value)
            evidence = {"path": where, "expected": expected, "actual": actual}
            if actual == expected:
                return passed(f"sha256 of {where} matches {expected[:12]}…", evidence)
            return failed(
                f"sha256 of {where} is {actual[:12]}…, expected {expected[:12]}…", evidence
            )

        return for_each_value(path, case, check_value)

    return check


ENTRIES = (
    PredicateEntry(
        name="equals",
        spec=EqualsSpec,
        prepare=_prepare_equals,
        doc=(
            "Passes when the field equals `value` as JSON (`1` equals `1.0`, `true` does not "
            "equal `1`). Only for fields no LLM wrote (ids, copied inputs, tool results): the "
            "contract check rejects it on `llm_fields`, and a case whose `field_meta` marks "
            "the field `source: llm` gives an error. Evidence: expected and actual values."
        ),
        example={"id": "routed_to_crm", "rubric": "equals", "field": "run.tool", "value": "crm"},
    ),
    PredicateEntry(
        name="sha256",
        spec=Sha256Spec,
        prepare=_prepare_sha256,
        doc=(
            "Passes when the SHA-256 of the field matches `value` (64 lowercase hex digits): "
            "of a string's UTF-8 bytes, or of the canonical JSON (sorted keys, no spaces) of "
            "any other value. For fields no LLM wrote, like `equals`. Evidence: expected and "
            "actual digests."
        ),
        example={
            "id": "input_untampered",
            "rubric": "sha256",
            "field": "input",
            "value": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
        },
    ),
)
