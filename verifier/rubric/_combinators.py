"""``all``, ``any`` and ``not``: predicates composed of other predicates.

An item of ``of`` is any predicate spec (recursively, combinators too), so the item
type is the registry's union of every spec, made when a combinator's schema is first
built. The registry is imported where it is used: it imports this module itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from verifier.rubric._base import (
    CANNOT_APPLY,
    Check,
    Outcome,
    PathText,
    PredicateEntry,
    PredicateSpec,
    PrepareContext,
    applies,
    cannot_apply,
    errored,
    failed,
    passed,
)

if TYPE_CHECKING:
    PredicateItem = PredicateSpec  # at run time: the registry's union of every spec
else:

    class PredicateItem:
        """Any registered predicate spec: the registry's union, made when the
        combinator's schema is first built."""

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
            from verifier.rubric._registry import predicate_spec_union  # it imports this module

            return handler.generate_schema(predicate_spec_union())


class _CombinatorSpec(PredicateSpec):
    field: PathText | None = Field(
        default=None, description="Field inherited by every item that takes one and names none."
    )
    of: tuple[PredicateItem, ...] = Field(
        min_length=1, description="The predicates combined, each with its own keys."
    )

    @model_validator(mode="before")
    @classmethod
    def _inherit_field(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or data.get("field") is None:
            return data
        from verifier.rubric._registry import REGISTRY as registry  # it imports this module

        items = data.get("of")
        if not isinstance(items, (list, tuple)):
            return data
        inherited = data["field"]
        of = []
        for item in items:
            rubric = item.get("rubric") if isinstance(item, Mapping) else None
            if isinstance(rubric, str) and "field" not in item:
                entry = registry.get(rubric)
                if entry is not None and "field" in entry.spec.model_fields:
                    item = {**item, "field": inherited}
            of.append(item)
        return {**data, "of": of}


class AllSpec(_CombinatorSpec):
    """Passes when every item passes."""

    rubric: Literal["all"]


class AnySpec(_CombinatorSpec):
    """Passes when at least one item passes."""

    rubric: Literal["any"]


class NotSpec(_CombinatorSpec):
    """Passes when its single item fails."""

    rubric: Literal["not"]

    @model_validator(mode="after")
    def _one_item(self) -> NotSpec:
        if len(self.of) != 1:
            raise ValueError(f"`not` takes exactly one item in `of`, not {len(self.of)}")
        return self


def _children(spec: _CombinatorSpec, ctx: PrepareContext) -> tuple[tuple[str, Check], ...]:
    from verifier.rubric._registry import REGISTRY as registry  # it imports this module

    return tuple(
        (item.rubric, registry[item.rubric].prepare(item, ctx))  # type: ignore[attr-defined]
        for item in spec.of
    )


def _item(name: str, outcome: Outcome) -> dict[str, Any]:
    return {
        "rubric": name,
        "status": outcome.status,
        "reason": outcome.reason,
        "evidence": outcome.evidence,
    }


def _missing(outcome: Outcome) -> dict[str, Any]:
    # Carried upwards so a `not` above can tell "could not check" from "false".
    evidence = outcome.evidence
    return {key: True for key in ("field_missing", CANNOT_APPLY) if evidence.get(key)}


def _prepare_all(spec: AllSpec, ctx: PrepareContext) -> Check:
    children = _children(spec, ctx)
    n = len(children)

    def check(case: Mapping[str, Any]) -> Outcome:
        outcomes = [(name, child(case)) for name, child in children]
        items = [_item(name, o) for name, o in outcomes]
        for status in ("fail", "error"):  # one fail settles it, even beside an error
            for i, (name, o) in enumerate(outcomes):
                if o.status == status:
                    verdict = failed if status == "fail" else errored
                    what = "failed" if status == "fail" else "could not be checked"
                    return verdict(
                        f"item {i + 1} of {n} ({name}) {what}: {o.reason}",
                        {"items": items, **_missing(o)},
                    )
        return passed(f"all {n} items pass", {"items": items})

    return check


def _prepare_any(spec: AnySpec, ctx: PrepareContext) -> Check:
    children = _children(spec, ctx)
    n = len(children)

    def check(case: Mapping[str, Any]) -> Outcome:
        items: list[dict[str, Any]] = []
        first_error: tuple[int, str, Outcome] | None = None
        for i, (name, child) in enumerate(children):
            o = child(case)
            items.append(_item(name, o))
            if o.status == "pass":
                return passed(f"item {i + 1} of {n} ({name}) passes: {o.reason}", {"items": items})
            if o.status == "error" and first_error is None:
                first_error = (i, name, o)
        if first_error is not None:
            i, name, o = first_error
            return errored(
                f"no item passes and item {i + 1} of {n} ({name}) could not be checked: {o.reason}",
                {"items": items},
            )
        # Only when no item could apply: one that checked and failed is a real "no".
        carried = {
            key: True
            for key in ("field_missing", CANNOT_APPLY)
            if all(item["evidence"].get(key) for item in items)
        }
        return failed(
            f"none of {n} items passes; item 1 ({items[0]['rubric']}): {items[0]['reason']}",
            {"items": items, **carried},
        )

    return check


def _prepare_not(spec: NotSpec, ctx: PrepareContext) -> Check:
    ((name, child),) = _children(spec, ctx)

    def check(case: Mapping[str, Any]) -> Outcome:
        o = child(case)
        items = [_item(name, o)]
        if o.status == "error":
            return errored(f"negated {name} could not be checked: {o.reason}", {"items": items})
        if o.status == "pass":
            return failed(f"negated {name} passed: {o.reason}", {"items": items})
        if not applies(o):
            # What could not be checked (a missing field, a value of the wrong kind,
            # text that does not parse) is no proof of the negation: it must not pass.
            return cannot_apply(
                f"negated {name} cannot apply: {o.reason}", {"items": items, **_missing(o)}
            )
        return passed(f"negated {name} failed as required: {o.reason}", {"items": items})

    return check


_DOC_TAIL = (
    " Items are predicates with their own keys (no `id`, `weight` or `after`); a `field` on "
    "the combinator is inherited by items that take a field and name none. Evidence: each "
    "item's status, reason and evidence."
)

ENTRIES = (
    PredicateEntry(
        name="all",
        spec=AllSpec,
        prepare=_prepare_all,
        doc="Passes when every item in `of` passes; one failing item fails it, and an item "
        "that could not be checked makes it an error unless another item failed." + _DOC_TAIL,
        example={
            "id": "well_formed_answer",
            "rubric": "all",
            "field": "output",
            "of": [
                {"rubric": "length", "min_words": 20, "max_words": 300},
                {"rubric": "not_contains", "values": ["As an AI"]},
            ],
        },
    ),
    PredicateEntry(
        name="any",
        spec=AnySpec,
        prepare=_prepare_any,
        doc="Passes as soon as one item in `of` passes (later items are not checked); when "
        "none passes it fails, or is an error if an item could not be checked." + _DOC_TAIL,
        example={
            "id": "cites_or_declines",
            "rubric": "any",
            "field": "output",
            "of": [
                {"rubric": "regex", "pattern": r"\[source: [^\]]+\]"},
                {"rubric": "contains", "values": ["I don't know"], "ignore_case": True},
            ],
        },
    ),
    PredicateEntry(
        name="not",
        spec=NotSpec,
        prepare=_prepare_not,
        doc="Passes when its single item fails and fails when it passes. When the item "
        "cannot apply, `not` fails too: a missing field, a value of the wrong kind (null or "
        "a list where text is searched, text where a number is bounded) or text that is not "
        "JSON proves nothing about the negation (`not: present` is the way to require a "
        "field to be absent)." + _DOC_TAIL,
        example={
            "id": "no_apology",
            "rubric": "not",
            "field": "output",
            "of": [{"rubric": "regex", "pattern": r"\bI apologi[sz]e\b", "flags": "i"}],
        },
    ),
)
